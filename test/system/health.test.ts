import { ClientModel } from '../../src/clients/client.model';
import { createClient, useTestApi } from '../support/harness';

describe('system operations', () => {
  const ctx = useTestApi();

  it('reports every engine up, to authenticated callers only', async () => {
    const anonymous = await ctx.api.call('GET', '/api/v1/system/health');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.checks).toBeUndefined();
    const res = await ctx.api.call('GET', '/api/v1/system/health', { token: ctx.admin });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    for (const engine of ['api', 'mongodb', 'redis', 'temporal']) expect(res.body.checks[engine].status).toBe('up');
  });

  it('answers liveness and readiness probes without credentials and without details', async () => {
    for (const probe of ['/healthz', '/readyz']) {
      const res = await ctx.api.call('GET', probe);
      expect({ probe, status: res.status, body: res.body }).toEqual({ probe, status: 200, body: { status: 'ok' } });
    }
  });

  it('keeps every /system operation behind credentials', async () => {
    for (const op of ['health', 'info', 'queue-stats', 'credential-health']) {
      expect({ op, status: (await ctx.api.call('GET', `/api/v1/system/${op}`)).status }).toEqual({ op, status: 401 });
    }
  });

  it('describes configuration and drivers without secrets', async () => {
    const res = await ctx.api.call('GET', '/api/v1/system/info', { token: ctx.admin });
    expect(res.status).toBe(200);
    expect(res.body.api_base_path).toBe('/api/v1');
    expect(res.body.drivers).toMatchObject({ email: 'outbox', sms: 'outbox', media: 'local' });
    expect(res.body.temporal.task_queue).toBe(ctx.api.config.TEMPORAL_TASK_QUEUE);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(process.env.CREDENTIALS_KEY!);
    expect(text).not.toContain('root-password');
  });

  it('counts active clients missing encrypted credentials', async () => {
    const first = await ctx.api.call('GET', '/api/v1/system/credential-health', { token: ctx.admin });
    expect(first.body).toMatchObject({ missing_encrypted_credentials: 0, status: 'ok' });
    const client = await createClient(ctx.api, ctx.admin, 'Broken Co');
    await ClientModel.updateOne({ _id: client.client_id }, { $unset: { credentials_encrypted: 1 } });
    const after = await ctx.api.call('GET', '/api/v1/system/credential-health', { token: ctx.admin });
    expect(after.body.missing_encrypted_credentials).toBe(1);
    expect(after.body.active_clients).toBe(first.body.active_clients + 1);
    expect(after.body.status).toBe('attention');
  });

  it('shows queue statistics from Temporal, with this worker polling', async () => {
    const res = await ctx.api.call('GET', '/api/v1/system/queue-stats', { token: ctx.admin });
    expect(res.status).toBe(200);
    const queue = res.body.task_queues.find((q: { name: string }) => q.name === ctx.api.config.TEMPORAL_TASK_QUEUE);
    expect(queue).toBeDefined();
    expect(queue.pollers).toBeGreaterThanOrEqual(1);
    expect(typeof queue.backlog).toBe('number');
    // The bulk queue's (jobs) too, which this process's worker polls as well.
    const bulk = res.body.task_queues.find((q: { name: string }) => q.name === ctx.api.config.bulkTaskQueue);
    expect(bulk.pollers).toBeGreaterThanOrEqual(1);
  });

  it('serves the contract and its docs', async () => {
    const raw = await fetch(`${ctx.api.url}/openapi.yaml`);
    expect(raw.status).toBe(200);
    expect(await raw.text()).toContain('/api/v1/system/health');
    const docs = await fetch(`${ctx.api.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
  });
});
