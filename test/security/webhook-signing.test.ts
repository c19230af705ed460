import { setTimeout as sleep } from 'node:timers/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { AccessTokenModel } from '../../src/agents/access-token.model';
import { BrandModel } from '../../src/brands/brand.model';
import { sha256 } from '../../src/lib/crypto';
import { newAccessToken } from '../../src/agents/token-format';
import { ReservationModel } from '../../src/pins/reservation.model';
import { WebhookSecretModel } from '../../src/clients/webhook-secret.model';
import { newWebhookSecret, webhookHeaders } from '../../src/lib/standard-webhooks';
import { createClient, eventually, useTestApi } from '../support/harness';
import { signatureCount, verifyDelivery } from '../support/standard-webhooks';
import { author, createSite, doc } from '../content/content-helpers';
import { FAST_RETRIES, SUBMIT } from '../jobs/support';
import { completeSignup, signupLink, tokenOf, freshPhone } from '../signup/signup-helpers';

interface Delivery {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  receivedAt: number;
  answered: number;
}

/** A receiver that records every delivery; per path, the statuses to answer in turn (then 200). */
async function receiver() {
  const deliveries: Delivery[] = [];
  const script: Record<string, number[]> = {};
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const answered = script[path]?.shift() ?? 200;
      deliveries.push({ path, headers: req.headers, raw, receivedAt: Date.now(), answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const at = (path: string) => deliveries.filter((d) => d.path === path);
  return { deliveries, script, base, at, close: () => new Promise((r) => server.close(r)) };
}

/** An agent access token of the client acting for `brandIds`, with every scope there is. */
async function agentToken(clientId: string, brandIds: number[]) {
  const token = newAccessToken();
  await AccessTokenModel.create({
    client_id: clientId,
    token_hash: sha256(token),
    token_prefix: token.slice(0, 12),
    brand_ids: brandIds,
    scopes: ['jobs:read', 'jobs:submit', 'content:write', 'content:deploy'],
    expires_at: new Date(Date.now() + 3600_000),
  });
  return token;
}

const OVERLAP_SECONDS = 10;
const SECRET = '/api/v1/dashboard/webhook-secret';
const ROTATE = '/api/v1/dashboard/webhook-secret/rotate';

describe('webhook signing: Standard Webhooks with a sealed, rotatable per-client secret', () => {
  const logLines: string[] = [];
  const logs = new Writable({
    write(chunk, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  const ctx = useTestApi(
    {
      ...FAST_RETRIES,
      WEBHOOK_SECRET_OVERLAP_SECONDS: String(OVERLAP_SECONDS),
      LOG_LEVEL: 'debug',
      PIN_CALLBACK_RETRY_INITIAL_MS: '200',
      PIN_COMPLETE_WAIT_MS: '10000',
    },
    { logDestination: logs },
  );
  let hooks: Awaited<ReturnType<typeof receiver>>;
  let acme: Awaited<ReturnType<typeof createClient>>;
  /** Every secret the tests saw, for the check that none is stored or logged in clear. */
  const seen: string[] = [];
  const readSecret = async (token: string, headers: Record<string, string> = {}) => {
    const res = await ctx.api.call('GET', SECRET, { token, headers });
    expect(res.status).toBe(200);
    seen.push(res.body.secret);
    return res.body as { secret: string; created_at: string; previous_expires_at: string | null };
  };
  const submit = (path: string) =>
    ctx.api.call('POST', SUBMIT, {
      token: acme.triple,
      body: {
        query: 'bakery',
        country_code: 'LU',
        max_locations: 1,
        max_results: 1,
        webhook_url: `${hooks.base}${path}`,
      },
    });
  const queuedAt = (path: string) =>
    eventually(async () => hooks.at(path).find((d) => JSON.parse(d.raw).event === 'job.queued'), 30_000);

  beforeAll(async () => {
    hooks = await receiver();
    acme = await createClient(ctx.api, ctx.admin, 'Signed Acme');
  });
  afterAll(() => hooks.close());

  it('signs a job webhook so that it verifies with the secret read from the API, at the delivery time', async () => {
    const first = await ctx.api.call('GET', SECRET, { token: acme.triple });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.any(String),
      previous_expires_at: null,
      overlap_seconds: OVERLAP_SECONDS,
    });
    const { secret } = await readSecret(acme.triple);
    expect(secret).toBe(first.body.secret); // made once, then the same

    hooks.script['/first'] = [503]; // the first attempt of the first event fails: its retry is signed anew
    const res = await submit('/first');
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('webhook_secret'); // an agent may submit jobs: the answer carries no secret
    const delivered = () => hooks.at('/first').filter((d) => d.answered === 200).length;
    await eventually(async () => (delivered() === 3 ? true : undefined), 30_000);
    for (const d of hooks.at('/first')) {
      expect(verifyDelivery(secret, d.headers, d.raw, { now: d.receivedAt })).toBe('ok');
      expect(signatureCount(d.headers)).toBe(1);
      expect(d.headers['webhook-id']).toBe(JSON.parse(d.raw).id); // the event id, the same on every retry
      expect(d.headers).not.toHaveProperty('x-lead-signature');
      // The timestamp is when the attempt was sent (whole seconds): not after it arrived, and (time is the subject
      // here) not long before, with 10 s of slack for a loaded machine.
      const sentAt = Number(d.headers['webhook-timestamp']);
      expect(sentAt).toBeLessThanOrEqual(d.receivedAt / 1000);
      expect(d.receivedAt / 1000 - sentAt).toBeLessThan(10);
    }
    const firstId = hooks.at('/first')[0].headers['webhook-id'];
    const [failed, retried] = hooks.at('/first').filter((d) => d.headers['webhook-id'] === firstId);
    expect(failed.answered).toBe(503);
    const timestampOf = (x: Delivery) => Number(x.headers['webhook-timestamp']);
    expect(timestampOf(retried)).toBeGreaterThanOrEqual(timestampOf(failed));

    // What a receiver refuses: a replay of a captured delivery later on, the same with its timestamp moved
    // forward (the signature covers it), a changed body, and another client's secret.
    const d = hooks.at('/first')[0];
    expect(verifyDelivery(secret, d.headers, d.raw, { now: d.receivedAt + 10 * 60_000 })).toBe('stale timestamp');
    // Moved a minute on and checked at that moment (it was "now", which in the delivery's own second is no move).
    const moved = Number(d.headers['webhook-timestamp']) + 60;
    const refreshed = { ...d.headers, 'webhook-timestamp': String(moved) };
    expect(verifyDelivery(secret, refreshed, d.raw, { now: moved * 1000 })).toBe('bad signature');
    const changed = d.raw.replace('job.', 'jab.');
    expect(verifyDelivery(secret, d.headers, changed, { now: d.receivedAt })).toBe('bad signature');
    const other = await createClient(ctx.api, ctx.admin, 'Other Signer');
    const otherSecret = (await readSecret(other.triple)).secret;
    expect(otherSecret).not.toBe(secret);
    expect(verifyDelivery(otherSecret, d.headers, d.raw, { now: d.receivedAt })).toBe('bad signature');
  });

  it('after a rotation signs with both secrets during the overlap, and with the new one only after it', async () => {
    const old = (await readSecret(acme.triple)).secret;
    const asked = Date.now();
    const rotated = await ctx.api.call('POST', ROTATE, { token: acme.triple });
    const answered = Date.now();
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const fresh = rotated.body.secret as string;
    seen.push(fresh);
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    const expiresAt = new Date(rotated.body.previous_expires_at).getTime();
    // The overlap starts when the rotation is made, between the request and its answer.
    expect(expiresAt).toBeGreaterThanOrEqual(asked + OVERLAP_SECONDS * 1000);
    expect(expiresAt).toBeLessThanOrEqual(answered + OVERLAP_SECONDS * 1000);
    expect(await readSecret(acme.triple)).toMatchObject({
      secret: fresh,
      previous_expires_at: rotated.body.previous_expires_at,
    });

    expect((await submit('/during')).status).toBe(200);
    const during = await queuedAt('/during');
    expect(during.receivedAt).toBeLessThan(expiresAt);
    expect(signatureCount(during.headers)).toBe(2);
    expect(String(during.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);
    expect(verifyDelivery(fresh, during.headers, during.raw, { now: during.receivedAt })).toBe('ok');
    expect(verifyDelivery(old, during.headers, during.raw, { now: during.receivedAt })).toBe('ok');

    await sleep(Math.max(0, expiresAt - Date.now()) + 1000); // time is the subject: past the overlap
    expect((await readSecret(acme.triple)).previous_expires_at).toBeNull();
    expect((await submit('/after')).status).toBe(200);
    const after = await queuedAt('/after');
    expect(signatureCount(after.headers)).toBe(1);
    expect(verifyDelivery(fresh, after.headers, after.raw, { now: after.receivedAt })).toBe('ok');
    expect(verifyDelivery(old, after.headers, after.raw, { now: after.receivedAt })).toBe('bad signature');
  }, 60_000);

  it('lets the client, its dashboard users and a super_admin naming it read it; never an agent token', async () => {
    const brandId = 9700;
    await BrandModel.create({
      _id: brandId,
      client_id: acme.client_id,
      brand_name: 'Signed brand',
      slug: 'signed-brand',
    });
    const { secret } = await readSecret(acme.triple);
    for (const role of ['brand_admin', 'client_user']) {
      const email = `${role.replace('_', '-')}@signed-acme.test`;
      const created = await ctx.api.call('POST', '/api/v1/dashboard/users', {
        token: ctx.admin,
        body: { email, role, client_id: acme.client_id, password: 'signed-password-123' },
      });
      expect(created.status).toBe(201);
      expect((await readSecret(await ctx.api.login(email, 'signed-password-123'))).secret).toBe(secret);
    }
    expect((await readSecret(ctx.admin, { 'X-Selected-Client-Id': acme.client_id })).secret).toBe(secret);
    const unselected = await ctx.api.call('GET', SECRET, { token: ctx.admin });
    expect(unselected.status).toBe(422);
    expect(unselected.body.errors[0].field).toBe('X-Selected-Client-Id');
    expect((await ctx.api.call('GET', SECRET)).status).toBe(401);
    expect((await ctx.api.call('POST', ROTATE)).status).toBe(401);

    const agent = await agentToken(acme.client_id, [brandId]);
    const working = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: agent });
    expect(working.status).toBe(200); // the token itself works
    for (const [method, path] of [
      ['GET', SECRET],
      ['POST', ROTATE],
    ]) {
      const refused = await ctx.api.call(method, path, { token: agent, headers: { 'X-Brand-Id': String(brandId) } });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: expect.any(String) });
      expect(JSON.stringify(refused.body)).not.toContain('whsec_');
    }
    expect((await readSecret(acme.triple)).secret).toBe(secret); // the refused rotation changed nothing

    // The agent's pin callback has its own secret, which does not sign (or reveal) the client's webhooks.
    const confirm = (name: string) =>
      ctx.api.call('POST', '/api/v1/agent/confirm-pin', {
        token: agent,
        body: {
          name,
          country_code: 'NL',
          channel: 'sms',
          identifier: freshPhone(),
          callback_url: `${hooks.base}/pin/${name}`,
        },
      });
    const confirms = await Promise.all(['AGENT-SIGNED', 'AGENT-SIGNED-2'].map(confirm));
    for (const c of confirms) expect(c.status).toBe(202);
    const [first, second] = confirms.map((c) => c.body.callback_secret as string);
    seen.push(first, second);
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(second).not.toBe(first);
    expect([first, second]).not.toContain(secret);

    const reservation = await ReservationModel.findById('NL:AGENT-SIGNED').lean();
    const link = await signupLink(ctx.api, ctx.admin, reservation!.identifier);
    expect((await completeSignup(ctx.api, tokenOf(link), 'AGENT-SIGNED')).status).toBe(202);
    const hit = await eventually(async () => hooks.at('/pin/AGENT-SIGNED')[0], 30_000);
    expect(verifyDelivery(first, hit.headers, hit.raw, { now: hit.receivedAt })).toBe('ok');
    expect(verifyDelivery(secret, hit.headers, hit.raw, { now: hit.receivedAt })).toBe('bad signature');
    expect(verifyDelivery(second, hit.headers, hit.raw, { now: hit.receivedAt })).toBe('bad signature');
    expect(hit.headers['webhook-id']).toBe(`pin_created_${confirms[0].body.reservation_id}`);
    expect(hit.headers['x-pin-reservation-id']).toBe(confirms[0].body.reservation_id);
  });

  it('signs the deploy hook with the client secret, its Idempotency-Key as webhook-id', async () => {
    const site = await createSite(ctx.api, ctx.admin, 'Signed Site', 'signed-site.example', {
      deploy_hook_url: `${hooks.base}/deploy`,
    });
    const as = author(ctx.api, site.triple);
    const post = await as.create('posts', { slug: 'signed', title: 'Signed', body: doc('x') });
    await as.publish('posts', post.id);
    const hit = await eventually(async () => hooks.at('/deploy')[0], 30_000);
    const { secret } = await readSecret(site.triple);
    expect(verifyDelivery(secret, hit.headers, hit.raw, { now: hit.receivedAt })).toBe('ok');
    expect(hit.headers['webhook-id']).toBe(hit.headers['idempotency-key']);
  });

  it('stores every secret only sealed and never logs one', async () => {
    expect(seen.length).toBeGreaterThanOrEqual(5);
    const stored = JSON.stringify([
      await WebhookSecretModel.find({}, null, { allTenants: true }).lean(),
      await ReservationModel.find({}).lean(),
    ]);
    expect(stored).toMatch(/"current_sealed":"v2:/);
    expect(stored).toMatch(/"callback_secret_sealed":"v2:/);
    const logged = logLines.join('');
    expect(logged.length).toBeGreaterThan(0);
    for (const secret of new Set(seen)) {
      const key = secret.slice('whsec_'.length);
      expect(stored).not.toContain(key);
      expect(logged).not.toContain(key);
    }
  });
});

describe('the signer (src/lib/standard-webhooks)', () => {
  // The Standard Webhooks specification's test vector (also the reference libraries' own test).
  const VECTOR = {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
    signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };

  it("reproduces the specification's test vector", () => {
    const headers = webhookHeaders([VECTOR.secret], VECTOR.id, VECTOR.body, VECTOR.timestamp * 1000 + 999);
    expect(headers).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    });
  });

  it("signs with every secret in force, each verifying with the library's verify alone", () => {
    const [fresh, old, stranger] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ id: 'evt_1', type: 'job.completed' });
    const headers = webhookHeaders([fresh, old], 'evt_1', body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [fresh, old]) {
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    }
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(fresh).verify(`${body} `, headers)).toThrow(WebhookVerificationError);
    expect(() => webhookHeaders([], 'evt_1', body)).toThrow(/at least one/);
    expect(() => webhookHeaders([fresh.slice('whsec_'.length)], 'evt_1', body)).toThrow(/not a webhook secret/);
  });
});
