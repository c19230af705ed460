import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import YAML from 'yaml';
import { JobModel } from '../../src/jobs/job.model';
import { ERROR_CODES } from '../../src/lib/errors';
import { TagModel } from '../../src/content/taxonomy.model';
import { loadOpenApi } from '../../src/lib/http/openapi-spec';
import { idempotencyKeyOf } from '../../src/lib/http/idempotency';
import { createClient, startTestApi, useTestApi, type CallOptions, type TestApi } from '../support/harness';
import { spawnBeside } from '../support/second-api';
import { FAST_RETRIES, SUBMIT, jobPath, waitForStatus } from '../jobs/support';
import { approvalMail, brandsFor, linkOf } from '../agents/agent-helpers';
import { ADDRESS, brandCaller, reserve } from '../signup/signup-helpers';
import { AccessRequestModel } from '../../src/agents/access-request.model';
import { MESSAGING } from '../integrations/helpers';

const key = () => `"${randomUUID()}"`;
const withKey = (k: string, opts: CallOptions = {}): CallOptions => ({
  ...opts,
  headers: { ...opts.headers, 'idempotency-key': k },
});

/** Every stored Idempotency-Key record of this API's Redis prefix, by its key without the prefix. */
async function storedKeys(api: TestApi): Promise<Map<string, string>> {
  const redis = api.rt.engines.redis;
  const prefix = redis.options.keyPrefix ?? '';
  const keys = (await redis.keys(`${prefix}idempotency:*`)).map((k) => k.slice(prefix.length));
  const values = keys.length ? await redis.mget(...keys) : [];
  return new Map(keys.map((k, i) => [k, values[i] ?? '']));
}

const OPERATIONS_WITH_KEYS = [
  'submitMapsScrapeJob',
  'submitResearchJob',
  'confirmPin',
  'requestAccessToken',
  'requestAccessTokenByEmail',
  'createAuthor',
  'createPost',
  'createTag',
  'createPage',
  'createCategory',
  'createBrand',
  'createDashboardUser',
  'addUserToBrand',
  'addBrandMember',
  'createIntegration',
  'createClient',
  'syncIntegrationBilling',
  'triggerPasswordReset',
  'regenerateAgentToken',
  'regenerateCredentials',
  'rotateWebhookSecret',
  'proxyMessaging',
  'proxyParcelTracking',
  'createWatch',
  'triggerWatch',
  'completeSignup',
  'confirmApproveAccessRequest',
  'confirmDenyAccessRequest',
  'decideAccessRequest',
].sort();

/** The public operations whose key belongs to the caller's address: they have no token of their own yet. */
const ADDRESS_SCOPED = ['requestAccessToken', 'requestAccessTokenByEmail'];

describe('the contract declares Idempotency-Key where a POST creates or starts something', () => {
  const doc = YAML.parse(loadOpenApi().text);
  const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) =>
    Object.entries(item).map(([method, op]) => ({ method, op })),
  );
  const resolve = (node: any) =>
    node?.$ref
      ? node.$ref
          .split('/')
          .slice(1)
          .reduce((at: any, k: string) => at[k], doc)
      : node;
  const declares = (op: any) =>
    (op.parameters ?? []).some((p: any) => resolve(p).name === 'Idempotency-Key' && resolve(p).in === 'header');

  it('on exactly these operations, each with its 409 (in flight) and 422 (reused) answers', () => {
    const keyed = operations.filter(({ op }) => declares(op));
    expect(keyed.map(({ op }) => op.operationId).sort()).toEqual(OPERATIONS_WITH_KEYS);
    for (const { method, op } of keyed) {
      expect([op.operationId, method]).toEqual([op.operationId, 'post']);
      expect([op.operationId, Object.keys(op.responses)]).toEqual([
        op.operationId,
        expect.arrayContaining(['409', '422']),
      ]);
      expect(resolve(op.responses['409']).headers?.['Retry-After']).toBeDefined();
    }
  });

  it('a public operation names the token its keys belong to (x-idempotency-scope), or has none yet', () => {
    const publicKeyed = operations.filter(({ op }) => declares(op) && op.security?.length === 0);
    for (const { op } of publicKeyed) {
      const scope: string | undefined = op['x-idempotency-scope'];
      if (ADDRESS_SCOPED.includes(op.operationId)) {
        expect([op.operationId, scope]).toEqual([op.operationId, undefined]);
        continue;
      }
      // A required parameter or body property, so every request carries it.
      const [where, name] = (scope ?? '').split('.');
      const required =
        where === 'query'
          ? (op.parameters ?? []).some(
              (p: any) => resolve(p).in === 'query' && resolve(p).name === name && resolve(p).required,
            )
          : where === 'body' && op.requestBody?.content['application/json'].schema.required.includes(name);
      expect([op.operationId, scope, required]).toEqual([op.operationId, scope, true]);
    }
    expect(publicKeyed.map(({ op }) => op.operationId).sort()).toEqual(
      [...ADDRESS_SCOPED, 'completeSignup', 'confirmApproveAccessRequest', 'confirmDenyAccessRequest'].sort(),
    );
  });

  it("the header's pattern accepts exactly the values the stage reads as a key", () => {
    const pattern = new RegExp(resolve({ $ref: '#/components/parameters/IdempotencyKey' }).schema.pattern, 'u');
    const values = ['8e03978e-40d5', '"8e03978e-40d5"', '"a b"', 'a b', '"a\\"b"', 'a"b', '"k";p=1', 'a,b', '""'];
    for (const c of ['!', '#', '+', '-', ':', '<', '[', ']', '~', '"', ',', ';', '\\', ' ', '\t', 'é'])
      values.push(`a${c}b`, `"a${c}b"`);
    values.push('x'.repeat(255), 'x'.repeat(256), `"${'x'.repeat(255)}"`, `"${'x'.repeat(256)}"`);
    for (const v of values) expect([v, pattern.test(v)]).toEqual([v, idempotencyKeyOf(v) !== null]);
  });

  it('every operation an agent may call declares 429 with the RateLimit fields; the relays 402', () => {
    for (const { op } of operations.filter(({ op }) => op['x-scopes'])) {
      const limited = resolve(op.responses['429']);
      expect([op.operationId, Object.keys(limited?.headers ?? {})]).toEqual([
        op.operationId,
        expect.arrayContaining(['Retry-After', 'RateLimit-Policy', 'RateLimit']),
      ]);
    }
    for (const id of ['proxyMaps', 'proxyParcelTracking', 'proxyMessaging']) {
      const op = operations.find(({ op }) => op.operationId === id)!.op;
      expect(resolve(op.responses['402']).description).toContain('budget_exceeded');
    }
    // The contract names every code the service answers, and no other (src/lib/errors.ts is the service's list).
    expect(doc.components.schemas.ErrorCode.enum).toEqual([...ERROR_CODES]);
    expect(doc.components.schemas.ErrorCode.enum).toEqual(
      expect.arrayContaining([
        'rate_limited',
        'budget_exceeded',
        'idempotency_key_reused',
        'idempotency_key_in_flight',
      ]),
    );
  });
});

describe('Idempotency-Key on job submits, creates and access requests', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });
  const params = { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 2 };

  it('a retry with the same key and body gets the first answer and no second job; another body is 422', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Retry Jobs');
    const k = key();
    const first = await ctx.api.call('POST', SUBMIT, withKey(k, { token: acme.triple, body: params }));
    expect(first.status).toBe(200);
    // The same request with its fields in another order is the same request.
    const reordered = { max_locations: 2, region_codes: ['NL-UT'], country_code: 'NL', query: 'bakery' };
    const again = await ctx.api.call('POST', SUBMIT, withKey(k, { token: acme.triple, body: reordered }));
    expect([again.status, again.body]).toEqual([200, first.body]);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    const list = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: acme.triple });
    expect(list.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([first.body.job_id]);

    const other = await ctx.api.call(
      'POST',
      SUBMIT,
      withKey(k, { token: acme.triple, body: { ...params, query: 'florist' } }),
    );
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      code: 'idempotency_key_reused',
      errors: [{ location: 'header', field: 'Idempotency-Key' }],
    });
    // The same key sent to another operation is another request's key.
    const tag = await ctx.api.call(
      'POST',
      '/api/v1/dashboard/content/tags',
      withKey(k, { token: acme.triple, body: { name: 'Bakeries' } }),
    );
    expect(tag.status).toBe(201);
    // The same key from another credential is another key.
    const globex = await createClient(ctx.api, ctx.admin, 'Retry Jobs Other');
    const theirs = await ctx.api.call('POST', SUBMIT, withKey(k, { token: globex.triple, body: params }));
    expect(theirs.status).toBe(200);
    expect(theirs.body.job_id).not.toBe(first.body.job_id);
    // Without a key, each submit is a new job, as before.
    const plain = await ctx.api.call('POST', SUBMIT, { token: acme.triple, body: params });
    expect(plain.body.job_id).not.toBe(first.body.job_id);
  });

  it('keys are kept 24 hours, sealed, under a hash of the caller and the key (no credential in Redis)', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Retry Storage');
    const before = await storedKeys(ctx.api);
    const k = key();
    const res = await ctx.api.call('POST', SUBMIT, withKey(k, { token: acme.triple, body: params }));
    expect(res.status).toBe(200);
    const added = [...(await storedKeys(ctx.api))].filter(([name]) => !before.has(name));
    expect(added).toHaveLength(1);
    const [[name, value]] = added;
    expect(name).toMatch(/^idempotency:[0-9a-f]{64}$/);
    const ttl = await ctx.api.rt.engines.redis.pttl(name);
    expect(ttl).toBeGreaterThan(86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(86_400_000);
    for (const secret of [acme.triple, acme.api_secret, acme.api_key, k, res.body.job_id])
      expect(name + value).not.toContain(secret);
  });

  it('a bare key (a token, as most clients send it) is accepted, and is the same key as its quoted form', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Retry Bare');
    const uuid = randomUUID();
    const create = (k: string, name = 'Bare keys') =>
      ctx.api.call('POST', '/api/v1/dashboard/content/tags', withKey(k, { token: acme.triple, body: { name } }));
    const first = await create(uuid);
    expect(first.status).toBe(201);
    // The same value quoted (the draft's String) is the same key: the first answer, and still one tag.
    expect(await create(`"${uuid}"`)).toMatchObject({ status: 201, body: first.body });
    expect(await create(uuid)).toMatchObject({ status: 201, body: first.body });
    expect(await TagModel.countDocuments({ client_id: acme.client_id })).toBe(1);
    // And the other way round: quoted first, bare after.
    const other = randomUUID();
    const quoted = await create(`"${other}"`, 'Quoted first');
    expect(quoted.status).toBe(201);
    expect(await create(other, 'Quoted first')).toMatchObject({ status: 201, body: quoted.body });
    // Any visible ASCII but the separators (quote, comma, semicolon, backslash), up to 255 characters:
    // base64url, base64 and ULIDs as clients make them.
    for (const [i, k] of ['Ab-_9.~+/=', '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'x'.repeat(255)].entries()) {
      const res = await create(k, `Token ${i}`);
      expect([k, res.status]).toEqual([k, 201]);
      expect((await create(k, `Token ${i}`)).body).toEqual(res.body);
    }
  });

  it('malformed keys are refused before anything is done (a String, or a token without separators)', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Retry Malformed');
    for (const bad of [
      '""',
      '"a"b"',
      `"${'x'.repeat(256)}"`,
      '"tab\there"',
      '"unclosed',
      'unopened"',
      '"k";p=1',
      'two words',
      'a,b',
      'a;b',
      'back\\slash',
      'x'.repeat(256),
    ]) {
      const res = await ctx.api.call('POST', SUBMIT, withKey(bad, { token: acme.triple, body: params }));
      expect([bad, res.status]).toEqual([bad, 422]);
      expect(res.body.errors[0]).toMatchObject({
        location: 'header',
        field: expect.stringMatching(/^idempotency-key$/i),
      });
    }
    // Content authoring answers its own validation status (400) for it, as for any invalid parameter.
    const tag = await ctx.api.call(
      'POST',
      '/api/v1/dashboard/content/tags',
      withKey('two words', {
        token: acme.triple,
        body: { name: 'Opening hours' },
      }),
    );
    expect(tag.status).toBe(400);
    const list = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs', { token: acme.triple });
    expect(list.body.total).toBe(0);
    // An escaped quote is part of a well-formed key.
    const escaped = await ctx.api.call('POST', SUBMIT, withKey('"say \\"hi\\""', { token: acme.triple, body: params }));
    expect(escaped.status).toBe(200);
  });

  it('a created record (201) and its error answers (4xx) are replayed; the work is done once', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Retry Tags');
    const k = key();
    const create = () =>
      ctx.api.call(
        'POST',
        '/api/v1/dashboard/content/tags',
        withKey(k, {
          token: acme.triple,
          body: { name: 'Opening hours' },
        }),
      );
    const first = await create();
    expect(first.status).toBe(201);
    expect(await create()).toMatchObject({ status: 201, body: first.body });
    expect(await TagModel.countDocuments({ client_id: acme.client_id })).toBe(1);
    // Without the key, the same create is a conflict (the slug is taken): the replay above was not a second try.
    const clash = await ctx.api.call('POST', '/api/v1/dashboard/content/tags', {
      token: acme.triple,
      body: { name: 'Opening hours' },
    });
    expect(clash.status).toBe(409);
    // A 4xx is an answer like any other: its retry gets it again, even once its cause is gone.
    const source = await ctx.api.call('POST', SUBMIT, { token: acme.triple, body: params });
    const k2 = key();
    const research = () =>
      ctx.api.call(
        'POST',
        '/api/v1/dashboard/client/research/submit',
        withKey(k2, { token: acme.triple, body: { source_job_id: source.body.job_id } }),
      );
    const early = await research();
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/not completed/);
    await waitForStatus(ctx.api, acme.triple, jobPath(source.body.job_id), ['completed']);
    expect(await research()).toMatchObject({ status: 409, body: early.body });
    const fresh = await ctx.api.call('POST', '/api/v1/dashboard/client/research/submit', {
      token: acme.triple,
      body: { source_job_id: source.body.job_id },
    });
    expect(fresh.status).toBe(200); // without the key it is a new request, and the cause is gone
  });

  it('a public access request retried with its key sends one approval e-mail, answering the same receipt', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Retry Access');
    const k = key();
    const body = {
      client_id: acme.client_id,
      owner_email: 'dev@agency.test',
      project_name: 'lead-finder',
      requested_scopes: ['jobs:read'],
    };
    const first = await ctx.api.call('POST', '/api/v1/auth/pat/request', withKey(k, { body }));
    expect(first.status).toBe(200);
    const again = await ctx.api.call('POST', '/api/v1/auth/pat/request', withKey(k, { body }));
    expect(again.body).toEqual(first.body);
    expect(await AccessRequestModel.countDocuments({ client_id: acme.client_id })).toBe(1);
    // The approval e-mail went out once, for the one request.
    await approvalMail(ctx.api, ctx.admin, acme.admin_email, first.body.request_id);
    const mails = await ctx.api.call(
      'GET',
      `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(acme.admin_email)}`,
      { token: ctx.admin },
    );
    expect(mails.body.messages).toHaveLength(1);
  });
});

describe("Idempotency-Key on public operations belongs to the resource's token, not to the address", () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });

  it('two signup completions with one key and two signup tokens, from one address, are two requests', async () => {
    const agent = await brandCaller(ctx.api, ctx.admin, 'Retry Signup');
    // Pin names are the registry's, shared by every run: each run's own.
    const [nameOne, nameTwo] = ['one', 'two'].map((n) => `RETRY-${n}-${randomUUID().slice(0, 8)}`.toUpperCase());
    const [one, two] = [
      await reserve(ctx.api, ctx.admin, agent, nameOne),
      await reserve(ctx.api, ctx.admin, agent, nameTwo),
    ];
    const k = key();
    const complete = (token: string, name: string) =>
      ctx.api.call(
        'POST',
        '/api/v1/signup/complete',
        withKey(k, {
          body: { token, name, country_code: 'NL', lat: 52.0907, lng: 5.1214, structured_address: ADDRESS },
        }),
      );
    const first = await complete(one.token, nameOne);
    expect([first.status, first.body.pin_id]).toEqual([202, `NL:${nameOne}`]);
    const second = await complete(two.token, nameTwo);
    expect([second.status, second.body.pin_id]).toEqual([202, `NL:${nameTwo}`]);
    // Each token's retry gets its own first answer.
    expect(await complete(one.token, nameOne)).toMatchObject({ status: 202, body: first.body });
    expect(await complete(two.token, nameTwo)).toMatchObject({ status: 202, body: second.body });
    // With one token, the key is one key: another body is refused, not run.
    const reused = await complete(one.token, nameTwo);
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);
    // Only hashes of the tokens are stored.
    const stored = [...(await storedKeys(ctx.api))].join(' ');
    for (const token of [one.token, two.token]) expect(stored).not.toContain(token);
  });

  it("two approvals with one key, each through its own request's link, from one address, are two decisions", async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Retry Approvals');
    const ask = async (project_name: string) => {
      const body = {
        client_id: acme.client_id,
        owner_email: 'dev@agency.test',
        project_name,
        requested_scopes: ['jobs:read'],
      };
      const receipt = await ctx.api.call('POST', '/api/v1/auth/pat/request', { body });
      expect(receipt.status).toBe(200);
      return linkOf(await approvalMail(ctx.api, ctx.admin, acme.admin_email, receipt.body.request_id), 'approve');
    };
    const links = [await ask('first-agent'), await ask('second-agent')];
    const k = key();
    const approve = (link: string) =>
      fetch(link, { method: 'POST', headers: { accept: 'application/json', 'idempotency-key': k } }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as { request_id: string; status: string } }),
      );
    const first = await approve(links[0]);
    const second = await approve(links[1]);
    expect([first.status, first.body.status, second.status, second.body.status]).toEqual([
      200,
      'approved',
      200,
      'approved',
    ]);
    expect(second.body.request_id).not.toBe(first.body.request_id);
    // A retry whose answer was lost gets the decision again, not 409 "already decided".
    expect(await approve(links[0])).toEqual(first);
  });
});

describe('a per-caller cap on kept answers', () => {
  // Small caps, so that a test reaches them with a few answers (the defaults: 10,000 answers and 16 MiB).
  const MAX_ANSWERS = 5;
  const MAX_BYTES = 8192;
  const ctx = useTestApi({
    IDEMPOTENCY_MAX_ANSWERS_PER_CALLER: String(MAX_ANSWERS),
    IDEMPOTENCY_MAX_BYTES_PER_CALLER: String(MAX_BYTES),
  });
  const tag = (token: string, k: string, name: string, description?: string) =>
    ctx.api.call('POST', '/api/v1/dashboard/content/tags', withKey(k, { token, body: { name, description } }));
  /** Creates a tag with a new key; answers the key, the answer and the size of what was kept for it. */
  async function keptTag(token: string, name: string, description?: string) {
    const before = await storedKeys(ctx.api);
    const k = key();
    const res = await tag(token, k, name, description);
    expect(res.status).toBe(201);
    const added = [...(await storedKeys(ctx.api))].filter(([n]) => !before.has(n));
    expect(added).toHaveLength(1);
    return { k, res, size: added[0][1].length };
  }
  /**
   * A retry of a kept answer is replayed; of one no longer kept, done again (the slug is taken then: 409, an answer
   * kept in turn, which may take the caller's oldest).
   */
  const kept = async (token: string, made: { k: string; res: { body: any } }) => {
    const retry = await tag(token, made.k, made.res.body.name, made.res.body.description ?? undefined);
    if (retry.status === 201) expect(retry.body).toEqual(made.res.body);
    else expect(retry.status).toBe(409);
    return retry.status === 201;
  };

  it("a caller past its cap loses its oldest answers, never another caller's", async () => {
    const quiet = await createClient(ctx.api, ctx.admin, 'Cap Quiet');
    const quietOnes = [await keptTag(quiet.triple, 'Quiet one'), await keptTag(quiet.triple, 'Quiet two')];

    // By count: one more answer than the cap, small ones (so the bytes do not bind).
    const many = await createClient(ctx.api, ctx.admin, 'Cap Many');
    const small: Awaited<ReturnType<typeof keptTag>>[] = [];
    for (let i = 0; i <= MAX_ANSWERS; i++) small.push(await keptTag(many.triple, `Small ${i}`));
    expect(small.reduce((n, t) => n + t.size, 0)).toBeLessThan(MAX_BYTES);
    for (const t of small.slice(1)) expect(await kept(many.triple, t)).toBe(true);
    // Last: a retry not kept is a new request, whose answer (409) is kept in turn.
    expect(await kept(many.triple, small[0])).toBe(false);

    // By bytes: answers of ~2 KB each (a long description), one more than the bytes hold.
    const big = await createClient(ctx.api, ctx.admin, 'Cap Big');
    const description = 'd'.repeat(1000);
    const first = await keptTag(big.triple, 'Big 0', description);
    const fit = Math.floor(MAX_BYTES / first.size);
    expect(fit + 1).toBeLessThanOrEqual(MAX_ANSWERS); // so the bytes bind, not the count
    const bigOnes = [first];
    for (let i = 1; i <= fit; i++) bigOnes.push(await keptTag(big.triple, `Big ${i}`, description));
    expect(bigOnes.every((t) => t.size === first.size)).toBe(true);
    for (const t of bigOnes.slice(1)) expect(await kept(big.triple, t)).toBe(true);
    expect(await kept(big.triple, bigOnes[0])).toBe(false);

    // The quiet caller's answers are all still kept.
    for (const t of quietOnes) expect(await kept(quiet.triple, t)).toBe(true);
  });

  it("an answer larger than a caller's whole cap is not kept, and takes none of its other answers", async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Cap Oversize');
    const small = await keptTag(acme.triple, 'Before the post');
    const k = key();
    const text = 'word '.repeat(2000); // ~10 KB, in the answer too
    const post = () =>
      ctx.api.call(
        'POST',
        '/api/v1/dashboard/content/posts',
        withKey(k, {
          token: acme.triple,
          body: {
            slug: 'oversize',
            title: 'Oversize',
            body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] },
          },
        }),
      );
    const first = await post();
    expect(first.status).toBe(201);
    expect(JSON.stringify(first.body).length).toBeGreaterThan(MAX_BYTES);
    // Its retry does the work again: the slug is taken by then.
    expect((await post()).status).toBe(409);
    expect(await kept(acme.triple, small)).toBe(true);
  });
});

/** A messaging provider whose answers the test decides: held until released, or failing with a status. */
function messagingProvider() {
  const received: string[] = [];
  let hold: Promise<void> | null = null;
  let release = () => {};
  let failNext = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      received.push(body);
      if (hold) await hold;
      if (failNext) {
        failNext--;
        return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"busy"}');
      }
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sid: `SM${received.length}`, status: 'queued' }));
    });
  });
  return {
    received,
    start: () =>
      new Promise<string>((r) =>
        server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    holdNext() {
      hold = new Promise((r) => (release = () => ((hold = null), r())));
    },
    release: () => release(),
    failNext: (n: number) => void (failNext = n),
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('Idempotency-Key on a relayed message: in flight, and answers that are not kept', () => {
  const provider = messagingProvider();
  let api: TestApi;
  let triple: string;
  beforeAll(async () => {
    api = await startTestApi({ RELAY_MESSAGING_URL: await provider.start() });
    const admin = await api.login();
    const client = await createClient(api, admin, 'Retry Relay');
    triple = client.triple;
    await brandsFor(client.client_id, [801]);
    const created = await api.call('POST', '/api/v1/brands/801/integrations', {
      token: triple,
      body: { provider_name: 'messaging', key_label: 'SMS', is_primary: true, credentials: MESSAGING },
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    provider.release();
    await api?.stop();
    await provider.stop();
  });
  const send = (k: string, text = 'Your order is ready') =>
    api.call(
      'POST',
      '/api/v1/agent/proxy/messaging',
      withKey(k, {
        token: triple,
        headers: { 'x-brand-id': '801' },
        body: { path: '/Messages.json', form_body: { To: '+31612345678', Body: text } },
      }),
    );

  it('a retry while the first is in flight answers 409 with Retry-After; after it, the first answer', async () => {
    const k = key();
    provider.holdNext();
    const sent = provider.received.length;
    const first = send(k);
    // Wait until the provider holds the first call: the request is in flight.
    while (provider.received.length === sent) await new Promise((r) => setTimeout(r, 20));
    const during = await send(k);
    expect(during.status).toBe(409);
    expect(during.body.code).toBe('idempotency_key_in_flight');
    expect(Number(during.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    provider.release();
    const answered = await first;
    expect(answered.status).toBe(200);
    const after = await send(k);
    expect([after.status, after.body]).toEqual([200, answered.body]);
    expect(provider.received.length).toBe(sent + 1); // one message
  });

  it('a 5xx is not kept: the retry with the same key sends the message, and that answer is kept', async () => {
    const k = key();
    const sent = provider.received.length;
    provider.failNext(1);
    const failed = await send(k, 'Second');
    expect(failed.status).toBe(503);
    const retried = await send(k, 'Second');
    expect(retried.status).toBe(200);
    expect(await send(k, 'Second')).toMatchObject({ status: 200, body: retried.body });
    expect(provider.received.length).toBe(sent + 2);
  });
});

describe('a keyed job submit after a crash between its record and its workflow start', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(FAST_RETRIES);
  });
  afterAll(() => api?.stop());

  it('converges on the one job the first attempt stored', async () => {
    const acme = await createClient(api, await api.login(), 'Crash Window');
    // An API process that stores jobs but cannot start their workflows (its Temporal does not answer).
    const doomed = await spawnBeside(
      api,
      path.join(__dirname, '../support/api-process.ts'),
      { LOG_LEVEL: 'silent', TEMPORAL_ADDRESS: '127.0.0.1:9' },
      (output, proc) => {
        const url = /api ready (\S+)/.exec(output)?.[1];
        return url ? { url, proc } : undefined;
      },
    );
    const k = key();
    const body = { query: 'tailor', country_code: 'NL', region_codes: ['NL-ZE'], max_locations: 2 };
    const res = await fetch(`${doomed.url}${SUBMIT}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acme.triple}`, 'content-type': 'application/json', 'idempotency-key': k },
      body: JSON.stringify(body),
    });
    const stored = (await res.json()) as { job_id: string };
    doomed.proc.kill('SIGKILL');
    await new Promise((r) => doomed.proc.once('exit', r));
    // It died before its answer reached the client and before it kept the answer: the key is free again, the
    // job is recorded, and no workflow runs it.
    for (const name of (await storedKeys(api)).keys()) await api.rt.engines.redis.del(name);
    expect(await JobModel.countDocuments({ client_id: acme.client_id })).toBe(1);
    const describe = api.rt.engines.temporal.workflow.getHandle(stored.job_id).describe();
    await expect(describe).rejects.toThrow();

    const retried = await api.call('POST', SUBMIT, withKey(k, { token: acme.triple, body }));
    expect(retried.status).toBe(200);
    expect(retried.body.job_id).toBe(stored.job_id);
    const job = await waitForStatus(api, acme.triple, jobPath(stored.job_id), ['completed', 'failed'], 90_000);
    expect(job.status).toBe('completed');
    await api.rt.modules.jobs.sweep();
    expect(await JobModel.countDocuments({ client_id: acme.client_id })).toBe(1);
    const handle = api.rt.engines.temporal.workflow.getHandle(stored.job_id);
    await handle.result();
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  }, 180_000);
});
