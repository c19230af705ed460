import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ClientModel } from '../../src/clients/client.model';
import { loadConfig } from '../../src/lib/config';
import { outboundPolicy } from '../../src/lib/outbound';
import { pinCreatedWorkflowId } from '../../workflows/pin-reservation-api';
import { eventually, useTestApi, type TestApi } from '../support/harness';
import { author, createSite, doc } from '../content/content-helpers';
import { FAST_RETRIES, SUBMIT, jobPath, waitForStatus } from '../jobs/support';
import { brandCaller, completeSignup, confirmPin, freshPhone, reserve } from '../signup/signup-helpers';
import { deployHookWorkflowId } from '../../src/content/content.workflows';
import { jobWebhookWorkflowId } from '../../workflows/jobs-signals';

/** A local receiver that records every request it gets; `answer` decides the status and headers per path. */
type Answer = { status: number; headers?: Record<string, string> };
async function receiver(answer: (path: string) => Answer = () => ({ status: 200 })) {
  const hits: { path: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ path: req.url ?? '/', body });
      const { status, headers } = answer(req.url ?? '/');
      res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    hits,
    port,
    url: (host: string, path: string) => `http://${host}:${port}${path}`,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** The Temporal failure type a workflow ended with (the innermost cause that names one). */
async function failureOf(api: TestApi, workflowId: string): Promise<{ type?: string; message: string }> {
  const handle = api.rt.engines.temporal.workflow.getHandle(workflowId);
  // The workflow may not have started yet (not found): asked again until it has, then its end awaited.
  const ended = await eventually(
    () =>
      handle.result().then(
        () => ({ err: null }),
        (e: unknown) => {
          if (e instanceof WorkflowNotFoundError) throw e;
          return { err: e };
        },
      ),
    30_000,
  );
  if (!ended.err) throw new Error(`${workflowId} succeeded`);
  let cause = ended.err as { type?: string; message: string; cause?: unknown };
  while (!cause.type && cause.cause) cause = cause.cause as typeof cause;
  return { type: cause.type, message: cause.message };
}

const PIN_SETTINGS = { PIN_CALLBACK_RETRY_INITIAL_MS: '200', PIN_COMPLETE_WAIT_MS: '10000' };

describe('outbound calls to caller-chosen URLs, private addresses refused (OUTBOUND_ALLOW_PRIVATE=false)', () => {
  const ctx = useTestApi({ OUTBOUND_ALLOW_PRIVATE: 'false', ...FAST_RETRIES, ...PIN_SETTINGS });
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hook = await receiver();
  });
  afterAll(() => hook.close());

  it('answers 422 naming the field for a URL at a literal private, loopback or metadata address', async () => {
    const site = await createSite(ctx.api, ctx.admin, 'Literal', 'literal.example');
    const agent = await brandCaller(ctx.api, ctx.admin, 'Literal Agent');
    const literals = [
      hook.url('127.0.0.1', '/l'),
      'http://169.254.169.254/latest/meta-data/',
      hook.url('[::1]', '/l'),
      'http://[fd00:ec2::254]/',
      hook.url('[::ffff:127.0.0.1]', '/l'),
      hook.url('2130706433', '/l'),
      'http://10.0.0.5/hook',
      'http://100.64.1.1/',
      'http://[fe80::1]/',
      // NAT64 (a public IPv4 inside: the gateway, not this check, decides where it goes) and Teredo.
      'http://[64:ff9b::808:808]/hook',
      'http://[64:ff9b:1::a00:5]/hook',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    ];
    for (const url of literals) {
      const calls = [
        [
          'webhook_url',
          ctx.api.call('POST', SUBMIT, {
            token: site.triple,
            body: { query: 'x', country_code: 'LU', max_locations: 1, webhook_url: url },
          }),
        ],
        [
          'webhook_url',
          ctx.api.call('POST', '/api/v1/dashboard/client/research/submit', {
            token: site.triple,
            body: { companies: [{ name: 'A' }], webhook_url: url },
          }),
        ],
        [
          'callback_url',
          confirmPin(ctx.api, agent, {
            name: 'LITERAL-HOOK',
            identifier: freshPhone(),
            callback_url: url,
          }),
        ],
        [
          'deploy_hook_url',
          ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${site.client_id}`, {
            token: ctx.admin,
            body: { deploy_hook_url: url },
          }),
        ],
        [
          'deploy_hook_url',
          ctx.api.call('POST', '/api/v1/dashboard/admin/clients', {
            token: ctx.admin,
            body: { name: 'Hooked', admin_email: 'a@hooked.test', deploy_hook_url: url },
          }),
        ],
      ] as const;
      for (const [field, call] of calls) {
        const res = await call;
        expect({ url, status: res.status }).toEqual({ url, status: 422 });
        expect(res.body.errors).toEqual([expect.objectContaining({ location: 'body', field })]);
        expect(res.body.detail).toMatch(/must not point at a .* address/);
      }
    }
    // A host name passes here (what it resolves to is checked when it is called), and so does clearing the hook.
    const named = await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${site.client_id}`, {
      token: ctx.admin,
      body: { deploy_hook_url: 'https://hooks.example/deploy' },
    });
    expect(named.status).toBe(200);
    const cleared = await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${site.client_id}`, {
      token: ctx.admin,
      body: { deploy_hook_url: null },
    });
    expect(cleared.status).toBe(200);
    expect(hook.hits).toHaveLength(0);
  });

  it('never calls a job webhook whose name resolves to loopback, and fails its delivery as refused', async () => {
    const site = await createSite(ctx.api, ctx.admin, 'Named Hook', 'named-hook.example');
    const res = await ctx.api.call('POST', SUBMIT, {
      token: site.triple,
      body: {
        query: 'bakery',
        country_code: 'LU',
        max_locations: 1,
        max_results: 2,
        webhook_url: hook.url('localhost', '/job'),
      },
    });
    expect(res.status).toBe(200);
    await waitForStatus(ctx.api, site.triple, jobPath(res.body.job_id), ['completed']);
    for (const event of ['job.queued', 'job.completed']) {
      const failure = await failureOf(ctx.api, jobWebhookWorkflowId(res.body.job_id, event));
      expect(failure.type).toBe('OutboundRefused');
      expect(failure.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    }
    expect(hook.hits).toHaveLength(0);
  });

  it('never calls a deploy hook or callback resolving to loopback, nor a stored hook at a literal IP', async () => {
    const site = await createSite(ctx.api, ctx.admin, 'Named Deploy', 'named-deploy.example', {
      deploy_hook_url: hook.url('localhost', '/deploy'),
    });
    const as = author(ctx.api, site.triple);
    const post = await as.create('posts', { slug: 'refused', title: 'Refused', body: doc('x') });
    await as.publish('posts', post.id);
    const deploy = await failureOf(ctx.api, deployHookWorkflowId({ type: 'post', id: post.id, revision: 1 }));
    expect(deploy).toEqual({ type: 'OutboundRefused', message: expect.stringMatching(/loopback address/) });

    // Hooks stored before the policy was on (written to the store directly, as an older record would be).
    const stored = [
      ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
      [hook.url('127.0.0.1', '/d'), 'loopback'],
    ];
    for (const [url, reason] of stored) {
      await ClientModel.updateOne({ _id: site.client_id }, { deploy_hook_url: url });
      const slug = `stored-${reason.replace(' ', '-')}`;
      const older = await as.create('posts', { slug, title: 'Stored', body: doc('x') });
      await as.publish('posts', older.id);
      const failure = await failureOf(ctx.api, deployHookWorkflowId({ type: 'post', id: older.id, revision: 1 }));
      expect(failure).toEqual({ type: 'OutboundRefused', message: expect.stringContaining(`a ${reason} address`) });
    }

    const agent = await brandCaller(ctx.api, ctx.admin, 'Named Callback');
    const r = await reserve(ctx.api, ctx.admin, agent, 'NAMED-CALLBACK', {
      callback_url: hook.url('localhost', '/pin'),
    });
    expect((await completeSignup(ctx.api, r.token, 'NAMED-CALLBACK')).status).toBe(202);
    const callback = await failureOf(ctx.api, pinCreatedWorkflowId(r.reservation_id));
    expect(callback).toEqual({ type: 'OutboundRefused', message: expect.stringMatching(/loopback address/) });
    expect(hook.hits).toHaveLength(0);
  });
});

describe('outbound calls never follow a redirect', () => {
  const ctx = useTestApi({ ...FAST_RETRIES, ...PIN_SETTINGS });
  let target: Awaited<ReturnType<typeof receiver>>;
  let redirecting: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    target = await receiver();
    redirecting = await receiver((path) => ({
      status: 302,
      headers: { location: target.url('127.0.0.1', `/moved${path}`) },
    }));
  });
  afterAll(async () => {
    await target.close();
    await redirecting.close();
  });

  it('fails a webhook, a deploy hook and a pin callback answered 302, once, without calling the target', async () => {
    const site = await createSite(ctx.api, ctx.admin, 'Redirected', 'redirected.example', {
      deploy_hook_url: redirecting.url('127.0.0.1', '/deploy'),
    });
    const job = await ctx.api.call('POST', SUBMIT, {
      token: site.triple,
      body: {
        query: 'bakery',
        country_code: 'LU',
        max_locations: 1,
        max_results: 1,
        webhook_url: redirecting.url('127.0.0.1', '/job'),
      },
    });
    expect(job.status).toBe(200);
    const as = author(ctx.api, site.triple);
    const post = await as.create('posts', { slug: 'moved', title: 'Moved', body: doc('x') });
    await as.publish('posts', post.id);
    const agent = await brandCaller(ctx.api, ctx.admin, 'Redirected Agent');
    const r = await reserve(ctx.api, ctx.admin, agent, 'MOVED-CALLBACK', {
      callback_url: redirecting.url('127.0.0.1', '/pin'),
    });
    expect((await completeSignup(ctx.api, r.token, 'MOVED-CALLBACK')).status).toBe(202);

    const deliveries = [
      jobWebhookWorkflowId(job.body.job_id, 'job.queued'),
      deployHookWorkflowId({ type: 'post', id: post.id, revision: 1 }),
      pinCreatedWorkflowId(r.reservation_id),
    ];
    for (const id of deliveries) {
      const failure = await failureOf(ctx.api, id);
      expect({ id, ...failure }).toEqual({
        id,
        type: 'OutboundRedirected',
        message: expect.stringContaining('answered 302'),
      });
    }
    const queued = redirecting.hits.filter((h) => h.path === '/job' && JSON.parse(h.body).event === 'job.queued');
    expect(queued).toHaveLength(1);
    expect(redirecting.hits.filter((h) => h.path === '/deploy')).toHaveLength(1);
    expect(redirecting.hits.filter((h) => h.path === '/pin')).toHaveLength(1);
    expect(target.hits).toHaveLength(0);
  });
});

describe('the OUTBOUND_ALLOW_PRIVATE default: refused in every environment unless set to true', () => {
  it('allows private destinations only where OUTBOUND_ALLOW_PRIVATE=true', () => {
    const allowed = (env: Record<string, string>) => outboundPolicy(loadConfig(env)).allowPrivate;
    const key = 'a'.repeat(64);
    const site = 'https://leads.example';
    expect(allowed({ NODE_ENV: 'production', CREDENTIALS_KEY: key, PUBLIC_BASE_URL: site })).toBe(false);
    expect(allowed({ NODE_ENV: 'development' })).toBe(false);
    expect(allowed({ NODE_ENV: 'test' })).toBe(false);
    expect(allowed({ NODE_ENV: 'test', OUTBOUND_ALLOW_PRIVATE: 'false' })).toBe(false);
    expect(allowed({ NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE: 'true' })).toBe(true);
    expect(
      allowed({ NODE_ENV: 'production', CREDENTIALS_KEY: key, PUBLIC_BASE_URL: site, OUTBOUND_ALLOW_PRIVATE: 'true' }),
    ).toBe(true);
  });

  describe('a development service (as `npm start` runs) without the variable', () => {
    const ctx = useTestApi({ NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE: '' });

    it('answers 422 for a webhook and a deploy hook on loopback', async () => {
      const site = await createSite(ctx.api, ctx.admin, 'Dev Default', 'dev-default.example');
      const job = await ctx.api.call('POST', SUBMIT, {
        token: site.triple,
        body: { query: 'x', country_code: 'LU', max_locations: 1, webhook_url: 'http://127.0.0.1:9999/jobs' },
      });
      expect(job.status).toBe(422);
      expect(job.body.detail).toMatch(/webhook_url must not point at a loopback address/);
      const hook = await ctx.api.call('PATCH', `/api/v1/dashboard/admin/clients/${site.client_id}`, {
        token: ctx.admin,
        body: { deploy_hook_url: 'http://[::1]:9999/deploy' },
      });
      expect(hook.status).toBe(422);
    });
  });
});
