import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDeployHooks } from '../../src/content/deploy-hook';
import { createContentWorkflows } from '../../src/content/content.workflows';
import { createTemporalClient, REQUEST_CALL_DEADLINE_MS } from '../../src/lib/engines/temporal';
import { unavailableEngine } from '../../src/lib/http/engine-errors';
import { eventually, startTestApi, type TestApi } from '../support/harness';
import { freePort } from '../../tools/devstack/ports';
import { author, createSite, doc } from './content-helpers';
import { deployHookWorkflowId } from '../../src/content/content.workflows';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A site builder's deploy hook: records every POST and answers with the next scripted status (then 200). */
async function hookServer() {
  const received: Received[] = [];
  const script = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      received.push({ path: req.url!, headers: req.headers, body: JSON.parse(raw) });
      const status = script.get(req.url!)?.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { received, script, base, close: () => new Promise((r) => server.close(r)) };
}

describe('the deploy hook on publish', () => {
  let api: TestApi;
  let admin: string;
  let hook: Awaited<ReturnType<typeof hookServer>>;

  beforeAll(async () => {
    api = await startTestApi();
    admin = await api.login();
    hook = await hookServer();
  });
  afterAll(async () => {
    await api.stop();
    await hook.close();
  });

  const calls = (path: string) => hook.received.filter((r) => r.path === path);

  it('POSTs the published record’s type, id and slug, once per published revision', async () => {
    const site = await createSite(api, admin, 'Hooked', 'hooked.example', { deploy_hook_url: `${hook.base}/hooked` });
    expect(site.deploy_hook_url).toBe(`${hook.base}/hooked`);
    const as = author(api, site.triple);
    const post = await as.create('posts', { slug: 'deploy-me', title: 'Deploy me', body: doc('x') });
    expect(calls('/hooked')).toHaveLength(0); // creating does not deploy
    await as.publish('posts', post.id);
    const [call] = await eventually(async () => (calls('/hooked').length ? calls('/hooked') : undefined));
    expect(call.body).toMatchObject({
      event: 'content.published',
      type: 'post',
      id: post.id,
      slug: 'deploy-me',
      client_id: site.client_id,
      revision: 1,
    });
    expect(call.headers['content-type']).toMatch(/application\/json/);
    expect(call.headers['idempotency-key']).toBe(`content-deploy-post-${post.id}-r1`);

    const page = await as.create('pages', { slug: 'hooked-page', title: 'Page' });
    await as.publish('pages', page.id);
    await eventually(async () => (calls('/hooked').some((c) => c.body.type === 'page') ? true : undefined));
    expect(calls('/hooked').find((c) => c.body.type === 'page')!.body).toMatchObject({
      id: page.id,
      slug: 'hooked-page',
    });

    // Publishing the same revision again starts no second delivery; an edit and a new publish does.
    await as.publish('posts', post.id);
    await as.patch(`pages/${page.id}`, { title: 'Edited' });
    await as.publish('pages', page.id);
    await eventually(async () =>
      calls('/hooked').filter((c) => c.body.type === 'page').length === 2 ? true : undefined,
    );
    const temporal = api.rt.engines.temporal;
    await temporal.workflow.getHandle(deployHookWorkflowId({ type: 'page', id: page.id, revision: 2 })).result();
    expect(calls('/hooked').filter((c) => c.body.type === 'post')).toHaveLength(1);
    expect(
      calls('/hooked')
        .filter((c) => c.body.type === 'page')
        .map((c) => c.body.revision),
    ).toEqual([1, 2]);
  });

  it('retries while the hook fails with 5xx, and gives up at once on a 404', async () => {
    const site = await createSite(api, admin, 'Flaky', 'flaky.example');
    const set = await api.call('PATCH', `/api/v1/dashboard/admin/clients/${site.client_id}`, {
      token: admin,
      body: { deploy_hook_url: `${hook.base}/flaky` },
    });
    expect(set.body.deploy_hook_url).toBe(`${hook.base}/flaky`);
    hook.script.set('/flaky', [503, 502]);
    const as = author(api, site.triple);
    const post = await as.create('posts', { slug: 'flaky', title: 'Flaky', body: doc('x') });
    await as.publish('posts', post.id);
    const temporal = api.rt.engines.temporal;
    expect(
      await temporal.workflow.getHandle(deployHookWorkflowId({ type: 'post', id: post.id, revision: 1 })).result(),
    ).toEqual({ status: 200 });
    expect(calls('/flaky')).toHaveLength(3);

    hook.script.set('/flaky', [404]);
    const gone = await as.create('posts', { slug: 'gone', title: 'Gone', body: doc('x') });
    await as.publish('posts', gone.id);
    await expect(
      temporal.workflow.getHandle(deployHookWorkflowId({ type: 'post', id: gone.id, revision: 1 })).result(),
    ).rejects.toThrow();
    expect(calls('/flaky').filter((c) => c.body.id === gone.id)).toHaveLength(1);
  });

  it('calls nothing for a client without a hook, and clears a hook with null', async () => {
    const site = await createSite(api, admin, 'Quiet', 'quiet.example', { deploy_hook_url: `${hook.base}/quiet` });
    const cleared = await api.call('PATCH', `/api/v1/dashboard/admin/clients/${site.client_id}`, {
      token: admin,
      body: { deploy_hook_url: null },
    });
    expect(cleared.body.deploy_hook_url).toBeNull();
    const as = author(api, site.triple);
    const post = await as.create('posts', { slug: 'quiet', title: 'Quiet', body: doc('x') });
    await as.publish('posts', post.id);
    await expect(
      api.rt.engines.temporal.workflow
        .getHandle(deployHookWorkflowId({ type: 'post', id: post.id, revision: 1 }))
        .describe(),
    ).rejects.toThrow(/not found/i);
    expect(calls('/quiet')).toHaveLength(0);
    const bad = await api.call('PATCH', `/api/v1/dashboard/admin/clients/${site.client_id}`, {
      token: admin,
      body: { deploy_hook_url: 'not a url' },
    });
    expect(bad.status).toBe(422);
  });

  it('gives up on an unreachable Temporal within the request deadline, as an unavailable engine (503)', async () => {
    const site = await createSite(api, admin, 'Stranded', 'stranded.example', {
      deploy_hook_url: `${hook.base}/stranded`,
    });
    const unreachable = createTemporalClient(
      { address: `127.0.0.1:${await freePort()}` },
      'default',
      api.rt.payloadCodec,
    );
    try {
      const hooks = createDeployHooks(createContentWorkflows(unreachable, api.config.TEMPORAL_TASK_QUEUE));
      const started = Date.now();
      const failure = await hooks
        .published({
          event: 'content.published',
          type: 'post',
          id: 'p1',
          slug: 'p1',
          client_id: site.client_id,
          revision: 1,
          published_at: new Date().toISOString(),
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      expect(unavailableEngine(failure)).toBe('temporal');
      // Time is the subject: retries stop at the deadline. Without it the client's own retries take about 20 s,
      // and a backoff sleeping past the deadline answered up to 5 s late; 2.5 s of slack is for a loaded machine.
      expect(Date.now() - started).toBeLessThan(REQUEST_CALL_DEADLINE_MS + 2500);
    } finally {
      await unreachable.connection.close();
    }
  });
});
