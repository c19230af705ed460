import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  createLeadServiceClient,
  LeadServiceError,
  newIdempotencyKey,
  retryingFetch,
  unwrap,
} from '@lead-service/client';
import { useTestApi, type TestApi } from '../support/harness';
import { agentOf, answerLosingProxy, SMALL_JOB } from './client-fixtures';

const SUBMIT = '/api/v1/dashboard/client/jobs/maps-scrape/submit';
const CLI = path.resolve(__dirname, '../../node_modules/.bin/lead-service');
const MCP = path.resolve(__dirname, '../../node_modules/.bin/lead-service-mcp');
const KEY = /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/;

/** The client's jobs, as its own credential lists them. */
const jobsOf = async (api: TestApi, triple: string) =>
  (await api.call('GET', '/api/v1/dashboard/client/jobs', { token: triple })).body.jobs as { job_id: string }[];

describe('the client, the CLI and the MCP server retry a lost answer with the same Idempotency-Key', () => {
  const ctx = useTestApi();

  it('the client: a submit whose answer is lost is retried with its key, and answered with the one job', async () => {
    const agent = await agentOf(ctx.api, ctx.admin, 'Retry Client', 71);
    const proxy = await answerLosingProxy(ctx.api.url, `POST ${SUBMIT}`);
    try {
      const lead = createLeadServiceClient({ baseUrl: proxy.url, token: agent.token });
      const { job_id } = await unwrap(lead.api.POST(SUBMIT, { body: SMALL_JOB }));
      expect(proxy.lostAnswers()).toBe(1);
      expect(proxy.keys).toHaveLength(2);
      expect(proxy.keys[0]).toMatch(KEY);
      expect(proxy.keys[1]).toBe(proxy.keys[0]);
      expect((await jobsOf(ctx.api, agent.client.triple)).map((j) => j.job_id)).toEqual([job_id]);
      // Each call is its own request: the next submit has a new key, and is a new job.
      await unwrap(lead.api.POST(SUBMIT, { body: SMALL_JOB }));
      expect(proxy.keys[2]).toMatch(KEY);
      expect(proxy.keys[2]).not.toBe(proxy.keys[0]);
      expect(await jobsOf(ctx.api, agent.client.triple)).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it('without retries the same lost answer is an error, though the job was made (why keys matter)', async () => {
    const agent = await agentOf(ctx.api, ctx.admin, 'Retry Off', 72);
    const proxy = await answerLosingProxy(ctx.api.url, `POST ${SUBMIT}`);
    try {
      const lead = createLeadServiceClient({ baseUrl: proxy.url, token: agent.token, retry: { retries: 0 } });
      // No answer came: the client names it (LeadServiceUnreachable), the connection closed before an answer.
      await expect(lead.api.POST(SUBMIT, { body: SMALL_JOB })).rejects.toMatchObject({
        name: 'LeadServiceUnreachable',
        reason: 'reset',
        message: expect.stringMatching(/^could not reach http:\/\/127\.0\.0\.1:\d+: the connection was closed before/),
      });
      expect(await jobsOf(ctx.api, agent.client.triple)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('a POST without a key (cancel) is not retried after a network error: it might have been done', async () => {
    const agent = await agentOf(ctx.api, ctx.admin, 'No Key', 73);
    const lead = createLeadServiceClient({ baseUrl: ctx.api.url, token: agent.token });
    const { job_id } = await unwrap(lead.api.POST(SUBMIT, { body: { ...SMALL_JOB, query: 'slow sbx-slow-1500' } }));
    const cancel = `/api/v1/dashboard/client/jobs/${job_id}/cancel`;
    const proxy = await answerLosingProxy(ctx.api.url, `POST ${cancel}`);
    try {
      const through = createLeadServiceClient({ baseUrl: proxy.url, token: agent.token });
      const call = through.api.POST('/api/v1/dashboard/client/jobs/{job_id}/cancel', {
        params: { path: { job_id } },
      });
      await expect(call).rejects.toMatchObject({ name: 'LeadServiceUnreachable', reason: 'reset' });
      expect(proxy.keys).toEqual([null]); // sent once, without a key
    } finally {
      await proxy.close();
    }
    // A key the caller sets is the one sent; the service's code for its misuse reaches the caller.
    const key = '"my-own-key-0001"';
    const headers = { 'Idempotency-Key': key };
    await unwrap(lead.api.POST(SUBMIT, { body: SMALL_JOB, headers }));
    const misuse = await lead.api
      .POST(SUBMIT, { body: { ...SMALL_JOB, query: 'florist' }, headers })
      .then((r) => unwrap(Promise.resolve(r)))
      .catch((err: unknown) => err);
    expect(misuse).toBeInstanceOf(LeadServiceError);
    expect([(misuse as LeadServiceError).status, (misuse as LeadServiceError).code]).toEqual([
      422,
      'idempotency_key_reused',
    ]);
  });

  it('a keyed request answered 409 idempotency_key_in_flight is retried unchanged after its Retry-After', async () => {
    const seen: { key: string | undefined; at: number }[] = [];
    const server = http.createServer((req, res) => {
      seen.push({ key: req.headers['idempotency-key'] as string | undefined, at: Date.now() });
      if (seen.length === 1) {
        res.writeHead(409, { 'content-type': 'application/json', 'retry-after': '1' });
        return void res.end(JSON.stringify({ detail: 'in flight', code: 'idempotency_key_in_flight' }));
      }
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"done":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/things`;
      const key = newIdempotencyKey();
      const send = retryingFetch();
      const res = await send(new Request(url, { method: 'POST', headers: { 'Idempotency-Key': key }, body: '{}' }));
      expect(res.status).toBe(201);
      expect(seen.map((s) => s.key)).toEqual([key, key]);
      // Retry-After: 1 honoured (a timer may fire a millisecond early).
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
      // Without a key a 409 is an answer like any other: not retried.
      seen.length = 0;
      const plain = await send(new Request(url, { method: 'POST', body: '{}' }));
      expect([plain.status, seen.length]).toEqual([409, 1]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('the CLI (its own process): jobs submit retries the lost answer with its key', async () => {
    const agent = await agentOf(ctx.api, ctx.admin, 'Retry CLI', 74);
    const proxy = await answerLosingProxy(ctx.api.url, `POST ${SUBMIT}`);
    try {
      const args = ['jobs', 'submit', '--query', 'bakery', '--country', 'NL', '--region', 'NL-UT'];
      const child = spawn(CLI, [...args, '--max-locations', '2', '--json'], {
        env: { ...process.env, LEAD_SERVICE_URL: proxy.url, LEAD_SERVICE_TOKEN: agent.token, LEAD_SERVICE_CONFIG: '' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect([code, stderr]).toEqual([0, '']);
      const submitted = JSON.parse(stdout);
      expect(proxy.lostAnswers()).toBe(1);
      expect(proxy.keys).toEqual([expect.stringMatching(KEY), proxy.keys[0]]);
      expect((await jobsOf(ctx.api, agent.client.triple)).map((j) => j.job_id)).toEqual([submitted.job_id]);
    } finally {
      await proxy.close();
    }
  });

  it('the MCP server (stdio, through the SDK client): a tool call retries the lost answer with its key', async () => {
    const agent = await agentOf(ctx.api, ctx.admin, 'Retry MCP', 75);
    const proxy = await answerLosingProxy(ctx.api.url, `POST ${SUBMIT}`);
    const client = new Client({ name: 'lead-service-test', version: '1.0.0' });
    try {
      const env = { ...process.env, LEAD_SERVICE_URL: proxy.url, LEAD_SERVICE_TOKEN: agent.token };
      await client.connect(new StdioClientTransport({ command: MCP, env: env as never }));
      const { tools } = await client.listTools();
      const submit = tools.find((t) => t.name === 'submit_maps_scrape_job')!;
      expect(Object.keys(submit.inputSchema.properties ?? {})).not.toContain('idempotency_key');
      const result = await client.callTool({ name: 'submit_maps_scrape_job', arguments: SMALL_JOB });
      expect(result.isError).toBeFalsy();
      const { job_id } = result.structuredContent as { job_id: string };
      expect(proxy.lostAnswers()).toBe(1);
      expect(proxy.keys).toEqual([expect.stringMatching(KEY), proxy.keys[0]]);
      expect((await jobsOf(ctx.api, agent.client.triple)).map((j) => j.job_id)).toEqual([job_id]);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});
