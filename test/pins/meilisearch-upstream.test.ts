import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApi, type TestApi } from '../support/harness';
import { brandCaller } from './pin-fixtures';

type Mode = 'ok' | 'bad-filter' | 'auth' | 'down' | 'not-meilisearch' | 'not-json' | 'hang-up';

/**
 * A local stand-in for Meilisearch's HTTP API (tasks succeed at once), so the client path and the
 * upstream error rows can be tested without the engine: 400 relayed, 500 for a refused credential,
 * 502 for an answer that is not Meilisearch's, 503 for the engine down.
 */
function fakeMeilisearch() {
  const state = { mode: 'ok' as Mode, searches: [] as Array<Record<string, unknown>> };
  let task = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url?.startsWith('/tasks/'))
        return send(200, { uid: Number(req.url.split('/')[2]), status: 'succeeded', type: 'settingsUpdate' });
      if (!req.url?.endsWith('/search'))
        return send(202, {
          taskUid: ++task,
          indexUid: 'pins',
          status: 'enqueued',
          type: 'settingsUpdate',
          enqueuedAt: new Date().toISOString(),
        });
      state.searches.push(JSON.parse(raw));
      switch (state.mode) {
        case 'ok':
          return send(200, {
            hits: [{ pin_id: 'NL:KAASHUIS', name: 'KAASHUIS' }],
            query: 'kaas',
            processingTimeMs: 1,
            limit: 20,
            offset: 0,
            estimatedTotalHits: 1,
          });
        case 'bad-filter':
          return send(400, {
            message: 'Attribute `rating` is not filterable.',
            code: 'invalid_search_filter',
            type: 'invalid_request',
            link: 'https://docs.meilisearch.com/errors#invalid_search_filter',
          });
        case 'auth':
          return send(403, {
            message: 'The provided API key is invalid.',
            code: 'invalid_api_key',
            type: 'auth',
            link: 'https://docs.meilisearch.com/errors#invalid_api_key',
          });
        case 'down':
          return send(503, { message: 'overloaded', code: 'internal', type: 'internal' });
        case 'not-meilisearch':
          return send(200, { results: 'something else' });
        case 'not-json':
          return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy error page</html>');
        case 'hang-up':
          return req.socket.destroy();
      }
    });
  });
  return { state, server };
}

describe('search-pins through Meilisearch: the client path and the upstream error rows', () => {
  const fake = fakeMeilisearch();
  let api: TestApi;
  let caller: Awaited<ReturnType<typeof brandCaller>>;
  beforeAll(async () => {
    await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    api = await startTestApi({
      MEILISEARCH_URL: url,
      MEILISEARCH_API_KEY: 'test-search-key',
      MEILISEARCH_TIMEOUT_MS: '2000',
    });
    caller = await brandCaller(api, await api.login(), 931, 'Upstream');
  });
  afterAll(async () => {
    await api?.stop();
    await new Promise((r) => fake.server.close(r));
  });
  const search = (body: Record<string, unknown>) =>
    api.call('POST', '/api/v1/agent/search-pins', { token: caller.token, headers: caller.headers, body });

  it("relays Meilisearch's answer, with only served pins asked for", async () => {
    fake.state.mode = 'ok';
    const res = await search({ q: 'kaas', filter: 'country_code = NL' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ hits: [{ pin_id: 'NL:KAASHUIS' }], query: 'kaas', estimatedTotalHits: 1 });
    const sent = fake.state.searches.at(-1)!;
    expect(sent.q).toBe('kaas');
    expect(sent.filter).toEqual([
      expect.stringMatching(/^subscription_status = active AND subscription_expires_at > \d+$/),
      'country_code = NL',
    ]);
  });

  it("relays a rejected body as 400 with Meilisearch's message and code", async () => {
    fake.state.mode = 'bad-filter';
    const res = await search({ filter: 'rating = 5' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ detail: 'Attribute `rating` is not filterable.', code: 'invalid_search_filter' });
  });

  it.each([
    ['a refused credential', 'auth', 500],
    ['the engine failing', 'down', 503],
    ['an answer that is not a search response', 'not-meilisearch', 502],
    ['an answer that is not JSON', 'not-json', 502],
    ['the connection dropped', 'hang-up', 503],
  ] as const)('%s (%s) answers %d with a masked detail', async (_name, mode, status) => {
    fake.state.mode = mode;
    const res = await search({ q: 'x' });
    expect(res.status).toBe(status);
    expect(JSON.stringify(res.body)).not.toMatch(/api key|overloaded|proxy error|test-search-key/i);
  });
});
