import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN, createClient, eventually, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, jobPath, researchPath, waitForStatus } from './support';
import { verifyDelivery } from '../support/standard-webhooks';
import { jobWebhookWorkflowId } from '../../workflows/jobs-signals';

interface Delivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  answered: number;
}

let api: TestApi;
let acme: Awaited<ReturnType<typeof createClient>>;
let receiver: http.Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
/** Per path: the statuses to answer, in turn (then 200). */
const script: Record<string, number[]> = {};

beforeAll(async () => {
  api = await startTestApi(FAST_RETRIES);
  acme = await createClient(api, await api.login(ADMIN.email, ADMIN.password), 'Acme Hooks');
  receiver = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const path = req.url ?? '/';
    const answered = script[path]?.shift() ?? 200;
    deliveries.push({ path, headers: req.headers, raw, body: JSON.parse(raw), answered });
    res.writeHead(answered).end();
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await api.stop();
  await new Promise((r) => receiver.close(r));
});

const at = (path: string) => deliveries.filter((d) => d.path === path);

describe('job webhooks', () => {
  it('delivers every job event, signed, and retries a receiver that fails', async () => {
    script['/maps'] = [503, 500];
    const res = await api.call('POST', SUBMIT, {
      token: acme.triple,
      body: {
        query: 'bakery',
        country_code: 'LU',
        max_locations: 1,
        max_results: 4,
        webhook_url: `${receiverUrl}/maps`,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('webhook_secret');
    const { secret } = (await api.call('GET', '/api/v1/dashboard/webhook-secret', { token: acme.triple })).body;
    expect(secret).toMatch(/^whsec_/);
    const id = res.body.job_id;
    expect((await waitForStatus(api, acme.triple, jobPath(id), ['completed'])).webhook_url).toBe(`${receiverUrl}/maps`);
    await eventually(
      async () => (at('/maps').filter((d) => d.answered === 200).length === 3 ? true : undefined),
      30_000,
    );
    const ok = at('/maps').filter((d) => d.answered === 200);
    expect(ok.map((d) => d.body.event).sort()).toEqual(['job.completed', 'job.queued', 'job.started']);
    expect(at('/maps').filter((d) => d.answered !== 200)).toHaveLength(2); // retried after 503 and 500
    const stream = await api.rt.engines.redis.xrange(`events:client:${acme.client_id}`, '-', '+');
    for (const d of at('/maps')) {
      expect(verifyDelivery(secret, d.headers, d.raw)).toBe('ok'); // Standard Webhooks (test/security/webhook-signing)
      expect(d.headers['x-lead-event']).toBe(d.body.event);
      expect(d.body.data).toMatchObject({ job_id: id, job_type: 'maps-scrape', client_id: acme.client_id });
      expect(stream.some(([sid]) => sid === d.body.id)).toBe(true);
    }
    expect(ok.find((d) => d.body.event === 'job.completed')!.body.data).toMatchObject({
      status: 'completed',
      results_count: 4,
    });
    // A wrong key does not verify.
    const wrong = `whsec_${Buffer.alloc(32).toString('base64')}`;
    expect(verifyDelivery(wrong, at('/maps')[0].headers, at('/maps')[0].raw)).toBe('bad signature');
  });

  it('delivers job.failed for a research job and does not retry a receiver that refuses with 4xx', async () => {
    script['/gone'] = [410, 410, 410, 410];
    const res = await api.call('POST', '/api/v1/dashboard/client/research/submit', {
      token: acme.triple,
      body: {
        companies: [{ name: 'Locked', domain: 'locked-sbx-fail-403.example' }],
        webhook_url: `${receiverUrl}/gone`,
      },
    });
    expect(res.status).toBe(200);
    expect((await waitForStatus(api, acme.triple, researchPath(res.body.research_id), ['failed'])).error).toMatch(
      /403/,
    );
    await eventually(async () => (at('/gone').some((d) => d.body.event === 'job.failed') ? true : undefined), 30_000);
    // Each delivery's run has ended (a 410 is final): no attempt can follow.
    for (const event of ['job.queued', 'job.started', 'job.failed'])
      await api.rt.engines.temporal.workflow
        .getHandle(jobWebhookWorkflowId(res.body.research_id, event))
        .result()
        .catch(() => undefined);
    const events = at('/gone').map((d) => d.body.event);
    expect(events.sort()).toEqual(['job.failed', 'job.queued', 'job.started']); // each once: 410 is final
    expect(at('/gone').find((d) => d.body.event === 'job.failed')!.body.data).toMatchObject({
      status: 'failed',
      job_type: 'research',
    });
  });
});
