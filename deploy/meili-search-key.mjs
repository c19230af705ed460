// Makes the service's own Meilisearch API key from the master key, and writes it where the API and the workers read
// it (MEILISEARCH_API_KEY_FILE). The master key stays with Meilisearch and this job: the service's key may do only
// what src/pins/search/meili-engine.ts does, on its one index (MEILISEARCH_INDEX):
//   search            searching pins
//   documents.add     indexing a pin when it is written
//   documents.delete  removing a pin from the index
//   indexes.create    creating the index on first start
//   settings.update   applying the index's filterable, sortable, searchable and displayed attributes at start
//   tasks.get         waiting for those tasks, so a pin is searchable once its write is acknowledged
// The key has a fixed uid, so a rerun finds it; a key whose rights differ from these (an older release's) is
// replaced. Run by the `meili-key` service with Node's standard library only; tested by
// test/deploy/meili-search-key.test.ts.
import fs from 'node:fs';
import path from 'node:path';

const KEY_UID = '8d1c6f0e-4b7a-4c52-9a3e-2f5b1d7c9e41';
const ACTIONS = ['search', 'documents.add', 'documents.delete', 'indexes.create', 'settings.update', 'tasks.get'];

const url = (process.env.MEILISEARCH_URL ?? '').replace(/\/$/, '');
const index = process.env.MEILISEARCH_INDEX || 'pins';
const dir = process.env.SECRETS_DIR;
if (!url || !dir) throw new Error('MEILISEARCH_URL and SECRETS_DIR must be set');
const masterKey = fs.readFileSync(path.join(dir, 'meili/master_key'), 'utf8').trim();

async function call(method, route, body) {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status === 404 && method === 'GET') return null;
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : {};
}

const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

let key = await call('GET', `/keys/${KEY_UID}`);
if (key && !(same(key.actions, ACTIONS) && same(key.indexes, [index]))) {
  console.log('the service key has other rights than these: replacing it');
  await call('DELETE', `/keys/${KEY_UID}`);
  key = null;
}
key ??= await call('POST', '/keys', {
  uid: KEY_UID,
  name: 'lead-service',
  description: "The service's key: its pin index only (deploy/meili-search-key.mjs)",
  actions: ACTIONS,
  indexes: [index],
  expiresAt: null,
});
if (typeof key.key !== 'string' || !key.key) throw new Error('Meilisearch answered no key');
const file = path.join(dir, 'app/meilisearch_api_key');
fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
fs.writeFileSync(`${file}.partial`, key.key, { mode: 0o444 });
fs.renameSync(`${file}.partial`, file);
console.log(`the service's Meilisearch key (${ACTIONS.join(', ')} on ${index}) is in app/meilisearch_api_key`);
