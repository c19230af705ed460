import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/lib/config';
import { createLogger } from '../../src/lib/logger';
import { startApi, type ApiRuntime } from '../../src/runtime';

/**
 * The local default end to end: no engine URL configured, so the runtime starts its own devstack in a
 * data directory. A second start on the same directory finds the documents and the workflow runs of
 * the first.
 */
const json = async (res: Response): Promise<any> => res.json();

describe('a restart on the same data directory', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restart-'));
  const start = () =>
    startApi(
      loadConfig({
        NODE_ENV: 'test',
        PORT: '0',
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        CACHE_DIR: process.env.CACHE_DIR,
        WORKER_IN_API_PROCESS: 'true',
      }),
      { logger: createLogger('silent'), workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } },
    );
  const login = async (rt: ApiRuntime) => {
    const { email, password } = JSON.parse(fs.readFileSync(path.join(dataDir, 'dev-admin.json'), 'utf8'));
    const res = await fetch(`${rt.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(res.status).toBe(200);
    return (await json(res)).access_token as string;
  };

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('finds what it stored before: documents, the dev admin and workflow history', async () => {
    const first = await start();
    let clientId: string;
    let deliveryId: string;
    try {
      expect(first.devstack).toBeDefined();
      expect(first.admin?.newPassword).toBeDefined();
      const token = await login(first);
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await fetch(`${first.url}/api/v1/dashboard/admin/clients`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: 'Kept Co', admin_email: 'ops@kept.test' }),
      });
      clientId = (await json(created)).client_id;
      const me = await fetch(`${first.url}/api/v1/dashboard/me`, { headers: auth });
      const reset = await fetch(`${first.url}/api/v1/dashboard/users/${(await json(me)).user_id}/trigger-reset`, {
        method: 'POST',
        headers: auth,
      });
      deliveryId = (await json(reset)).delivery_id;
      await first.engines.temporal.workflow.getHandle(deliveryId).result();
    } finally {
      await first.stop();
    }

    const second = await start();
    try {
      expect(second.admin?.newPassword).toBeUndefined(); // shown once, at creation
      const token = await login(second);
      const list = await fetch(`${second.url}/api/v1/dashboard/admin/clients`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect((await json(list)).clients.map((c: { client_id: string }) => c.client_id)).toContain(clientId);
      const run = await second.engines.temporal.workflow.getHandle(deliveryId).describe();
      expect(run.status.name).toBe('COMPLETED');
    } finally {
      await second.stop();
    }
  }, 120_000);
});
