import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createClient, eventually, useTestApi, ADMIN, type TestApi } from '../support/harness';
import { approvedToken, brandsFor } from '../agents/agent-helpers';
import { createKey } from '../integrations/helpers';

const ENGINE_LOG_DIR = path.join(process.env.TEST_DATA_DIR!, 'logs');
const discard = new Writable({ write: (_c, _e, done) => done() });

const logs = (api: TestApi, token: string, query: string) =>
  api.call('GET', `/api/v1/dashboard/admin/logs${query}`, { token });
type Entry = { timestamp: string; container: string; level: string; message: string };

/** Every entry the store holds, read straight from Redis (not through the filters under test). */
async function everyStoredLine(api: TestApi): Promise<string> {
  const all = await api.rt.engines.redis.xrange('logs', '-', '+');
  return all.map(([, fields]) => fields.join(' ')).join('\n');
}

describe('log viewer', () => {
  const ctx = useTestApi(
    { LOG_LEVEL: 'info', ENGINE_LOG_DIR, ACCESS_REQUEST_RATE_PER_HOUR: '0' },
    { logDestination: discard },
  );

  it('keeps the API and worker lines, filtered by container, level, text, minutes and limit', async () => {
    const marker = `no-such-route-${Date.now()}`;
    const before = Date.now();
    expect((await ctx.api.call('GET', `/api/v1/${marker}`, { token: ctx.admin })).status).toBe(404);
    const found = await eventually(async () => {
      const res = await logs(ctx.api, ctx.admin, `?search=${marker.toUpperCase()}&minutes=5`);
      return res.body.entries.length ? res.body : undefined;
    });
    expect(found.entries[0]).toMatchObject({ container: 'api', level: 'warn' });
    expect(found.entries[0].message).toContain(marker);
    expect(Date.parse(found.entries[0].timestamp)).toBeGreaterThanOrEqual(before); // stamped when logged
    expect(Date.parse(found.entries[0].timestamp)).toBeLessThanOrEqual(Date.now());

    const warnings = await logs(ctx.api, ctx.admin, '?level=warn&limit=1000');
    expect(warnings.body.entries.length).toBeGreaterThan(0);
    expect(warnings.body.entries.every((e: Entry) => ['warn', 'error'].includes(e.level))).toBe(true);

    const api = await logs(ctx.api, ctx.admin, '?container=api&limit=1000');
    expect(api.body.entries.every((e: Entry) => e.container === 'api')).toBe(true);
    const times = api.body.entries.map((e: Entry) => e.timestamp);
    expect(times).toEqual([...times].sort().reverse()); // newest first

    const worker = await logs(ctx.api, ctx.admin, '?container=worker&search=temporal%20worker%20started&minutes=60');
    expect(worker.body.entries).toHaveLength(1);

    const one = await logs(ctx.api, ctx.admin, '?limit=1');
    expect(one.body).toMatchObject({ minutes: 15, truncated: true });
    expect(one.body.entries).toHaveLength(1);
    expect((await logs(ctx.api, ctx.admin, `?search=${marker}-absent`)).body).toMatchObject({
      entries: [],
      truncated: false,
    });
  });

  it("follows the engines' log files of the devstack", async () => {
    const engines = Object.entries({ 'redis.log': 'redis', 'temporal.log': 'temporal', 'mongo.log': 'mongo' }).filter(
      ([file]) =>
        fs.existsSync(path.join(ENGINE_LOG_DIR, file)) && fs.statSync(path.join(ENGINE_LOG_DIR, file)).size > 0,
    );
    expect(engines.length).toBeGreaterThan(0);
    for (const [, container] of engines) {
      const res = await eventually(async () => {
        const r = await logs(ctx.api, ctx.admin, `?container=${container}&minutes=60`);
        return r.body.entries.length ? r : undefined;
      });
      expect(res.body.entries.every((e: Entry) => e.container === container)).toBe(true);
    }
  });

  it('is for super_admins only, and rejects bad filters', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Logs Client');
    expect((await logs(ctx.api, client.triple, '')).status).toBe(403);
    expect((await ctx.api.call('GET', '/api/v1/dashboard/admin/logs')).status).toBe(401);
    for (const q of ['?level=verbose', '?minutes=0', '?limit=5000', '?minutes=abc']) {
      expect({ q, status: (await logs(ctx.api, ctx.admin, q)).status }).toEqual({ q, status: 422 });
    }
  });

  it('never holds a secret: login, credentials, a password reset, an approved token, a relayed call', async () => {
    const login = await ctx.api.call('POST', '/api/v1/auth/login', { body: ADMIN });
    const session = login.body.access_token as string;
    const client = await createClient(ctx.api, session, 'Secret Keeper');
    expect((await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: client.triple })).status).toBe(200);

    const email = 'reset-me@secret.test';
    const user = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: session,
      body: { email, role: 'client_user', client_id: client.client_id, password: 'first-secret-pass-1' },
    });
    await ctx.api.call('POST', `/api/v1/dashboard/users/${user.body.user_id}/trigger-reset`, { token: session });
    const link = await eventually(async () => {
      const res = await ctx.api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
        token: session,
      });
      return res.body.messages[0]?.links.find((l: string) => l.includes('token='));
    });
    const resetToken = new URL(link).searchParams.get('token')!;
    expect((await fetch(link)).status).toBe(200);
    const reset = await ctx.api.call('POST', '/api/v1/auth/password-reset', {
      body: { token: resetToken, new_password: 'second-secret-pass-2' },
    });
    expect(reset.status).toBe(200);

    await brandsFor(client.client_id, [901]);
    const { receipt, token } = await approvedToken(ctx.api, session, client);
    expect((await ctx.api.call('GET', '/api/v1/auth/pat/status', { token })).status).toBe(200);

    // The agent relays a maps call with the brand's stored key (sent to the sandbox provider).
    const mapsKey = 'maps-secret-key-for-logs-0001';
    await createKey(ctx.api, session, 901, { provider_name: 'maps', credentials: { api_key: mapsKey } });
    const relayed = await ctx.api.call('POST', '/api/v1/agent/proxy/maps/geocode/json', {
      token,
      body: { params: { address: 'Dam 1, Amsterdam' } },
    });
    expect(relayed.status).toBe(200);

    // The flows did leave their lines (so the search below is not vacuous)...
    await eventually(async () =>
      (await logs(ctx.api, ctx.admin, `?search=${encodeURIComponent('/auth/pat/status')}&minutes=5`)).body.entries
        .length
        ? true
        : undefined,
    );
    await eventually(async () =>
      (await logs(ctx.api, ctx.admin, '?search=password-reset&minutes=5')).body.entries.length ? true : undefined,
    );
    await eventually(async () =>
      (await logs(ctx.api, ctx.admin, `?search=${encodeURIComponent('proxy/maps')}&minutes=5`)).body.entries.length
        ? true
        : undefined,
    );
    // ...and not one secret is among them: through the viewer's search, nor anywhere in the store.
    const secrets = {
      password: ADMIN.password,
      session,
      api_key: client.api_key,
      api_secret: client.api_secret,
      reset_token: resetToken,
      new_password: 'second-secret-pass-2',
      user_password: 'first-secret-pass-1',
      poll_token: receipt.poll_token,
      access_token: token,
      maps_key: mapsKey,
    };
    const stored = await everyStoredLine(ctx.api);
    expect(stored).toContain('/auth/pat/request');
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length).toBeGreaterThan(8);
      const res = await logs(
        ctx.api,
        ctx.admin,
        `?search=${encodeURIComponent(secret.slice(0, 200))}&minutes=60&limit=1000`,
      );
      expect({ name, found: res.body.entries.length }).toEqual({ name, found: 0 });
      expect({ name, stored: stored.includes(secret) }).toEqual({ name, stored: false });
    }
    // Searching for them did not write them into the logs either: once a line logged after the searches is in the
    // store, theirs are too (the tap hands lines over in order).
    const marker = `no-such-route-after-searches-${Date.now()}`;
    await ctx.api.call('GET', `/api/v1/${marker}`, { token: ctx.admin });
    await eventually(async () => ((await everyStoredLine(ctx.api)).includes(marker) ? true : undefined));
    const after = await everyStoredLine(ctx.api);
    for (const [name, secret] of Object.entries(secrets))
      expect({ name, stored: after.includes(secret) }).toEqual({ name, stored: false });
  });
});
