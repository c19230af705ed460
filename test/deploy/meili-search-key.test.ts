import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const script = path.join(__dirname, '..', '..', 'deploy', 'meili-search-key.mjs');
const MASTER_KEY = 'a'.repeat(64);

interface StoredKey {
  uid: string;
  key: string;
  actions: string[];
  indexes: string[];
}

/**
 * A local stand-in for Meilisearch's /keys API (no Meilisearch binary exists here, as for
 * test/pins/meilisearch-upstream.test.ts): keys by uid, the master key required, 409 for a uid taken.
 */
async function keysApi() {
  const keys = new Map<string, StoredKey>();
  const calls: string[] = [];
  let made = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body?: unknown) =>
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(body === undefined ? '' : JSON.stringify(body));
      calls.push(`${req.method} ${req.url}`);
      if (req.headers.authorization !== `Bearer ${MASTER_KEY}`) return send(401, { code: 'invalid_api_key' });
      const uid = /^\/keys\/([\w-]+)$/.exec(req.url ?? '')?.[1];
      if (req.method === 'GET' && uid)
        return keys.has(uid) ? send(200, keys.get(uid)) : send(404, { code: 'api_key_not_found' });
      if (req.method === 'DELETE' && uid) return send(keys.delete(uid) ? 204 : 404);
      if (req.method === 'POST' && req.url === '/keys') {
        const body = JSON.parse(raw) as StoredKey;
        if (keys.has(body.uid)) return send(409, { code: 'api_key_already_exists' });
        const stored = { uid: body.uid, key: `service-key-${++made}`, actions: body.actions, indexes: body.indexes };
        keys.set(body.uid, stored);
        return send(201, stored);
      }
      send(404, { code: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keys,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("compose's meili-key job (deploy/meili-search-key.mjs)", () => {
  let dir: string;
  let api: Awaited<ReturnType<typeof keysApi>>;
  const run = (index?: string) =>
    promisify(execFile)(process.execPath, [script], {
      env: {
        PATH: process.env.PATH,
        SECRETS_DIR: dir,
        MEILISEARCH_URL: api.url,
        ...(index ? { MEILISEARCH_INDEX: index } : {}),
      },
    });
  const written = () => fs.readFileSync(path.join(dir, 'app/meilisearch_api_key'), 'utf8');

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meili-key-'));
    fs.mkdirSync(path.join(dir, 'meili'));
    fs.writeFileSync(path.join(dir, 'meili/master_key'), `${MASTER_KEY}\n`);
    api = await keysApi();
  });
  afterEach(async () => {
    await api.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("makes a key with the service's own rights on its index only, from the master key, and writes it for the app", async () => {
    await run();
    const [key] = [...api.keys.values()];
    // What src/pins/search/meili-engine.ts calls: search, addDocuments, deleteDocuments, createIndex,
    // updateSettings, and the tasks it waits for. Not keys, dumps, snapshots, other indexes or index deletion.
    expect(key.actions.sort()).toEqual(
      ['documents.add', 'documents.delete', 'indexes.create', 'search', 'settings.update', 'tasks.get'].sort(),
    );
    expect(key.indexes).toEqual(['pins']);
    expect(written()).toBe(key.key);
    expect(written()).not.toContain(MASTER_KEY);
    // The engine's code uses exactly those client calls (a new one needs its right added here).
    const engine = fs.readFileSync(path.join(__dirname, '../../src/pins/search/meili-engine.ts'), 'utf8');
    const used = [...engine.matchAll(/\b(?:client|index)\s*\.\s*(\w+)\(/g)].map((m) => m[1]);
    expect([...new Set(used)].sort()).toEqual(
      ['addDocuments', 'createIndex', 'deleteDocuments', 'index', 'search', 'updateSettings'].sort(),
    );
  });

  it('finds its key again on a rerun, and replaces one whose rights differ', async () => {
    await run();
    const first = written();
    api.calls.length = 0;
    await run();
    expect(written()).toBe(first);
    expect(api.calls.filter((c) => !c.startsWith('GET'))).toEqual([]);
    // The index was renamed (MEILISEARCH_INDEX): the old key is deleted and a new one made for the new index.
    await run('pins-v2');
    expect([...api.keys.values()].map((k) => k.indexes)).toEqual([['pins-v2']]);
    expect(written()).not.toBe(first);
  });

  it('fails loudly when Meilisearch refuses the master key', async () => {
    fs.writeFileSync(path.join(dir, 'meili/master_key'), 'b'.repeat(64));
    await expect(run()).rejects.toThrow(/401/);
    expect(fs.existsSync(path.join(dir, 'app/meilisearch_api_key'))).toBe(false);
  });
});
