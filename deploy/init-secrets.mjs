// Generates compose's secrets on first start, into the `secrets` volume (SECRETS_DIR), one folder per service that
// reads them: each service mounts its own folder only (docker-compose.yml, `volume.subpath`), so the API never
// sees Meilisearch's master key, Temporal's database password or MongoDB's root password.
//
// A secret that exists is never overwritten: a rerun, an upgrade or `docker compose up` after `down` finds the
// same ones. What is derived from them (connection strings, Redis's and Meilisearch's config, SeaweedFS's
// identity) is written again on every run, so replacing a secret's file and rerunning rotates what depends on it
// (docs/operations.md, "Compose's secrets"). Run by the `secrets` service as root, with Node's standard library
// only (the API's image runs it); tested by test/deploy/init-secrets.test.ts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.env.SECRETS_DIR;
if (!dir) throw new Error('SECRETS_DIR: the folder to keep the secrets in (compose mounts the secrets volume there)');
const mongoDb = process.env.MONGODB_DB ?? 'lead_service';

/** 32 random bytes as 64 hex digits: safe in a URL, a TOML string, a shell word and a JSON string as it is. */
const random = () => randomBytes(32).toString('hex');

// Readable by every user: the containers' processes run as different ones (mongodb, redis and postgres 999, the
// API's node 1000, Grafana 472), and each container sees only its own folder.
const FILE_MODE = 0o444;

/** The secret at `name`, created once with `make()` if it is not there yet; an existing one is never replaced. */
function secret(name, make = random) {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  try {
    fs.writeFileSync(file, make(), { flag: 'wx', mode: FILE_MODE });
    console.log(`created ${name}`);
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
  const value = fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  if (!value) throw new Error(`${name} is empty: remove it to have a new one generated, or write one in it`);
  return value;
}

/** A file the operator fills when needed (a rotation), created empty once; the service reads an empty one as unset. */
function keptEmpty(name) {
  const file = path.join(dir, name);
  try {
    fs.writeFileSync(file, '', { flag: 'wx', mode: FILE_MODE });
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
}

/** A file derived from the secrets, replaced whole (written aside, then renamed) so no reader sees half of it. */
function derived(name, content) {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  const partial = `${file}.partial`;
  fs.writeFileSync(partial, content, { mode: FILE_MODE });
  fs.chmodSync(partial, FILE_MODE);
  fs.renameSync(partial, file);
}

secret('mongo/root_password');
const mongoApp = secret('mongo/app_password');
const redisPassword = secret('redis/password');
const meiliMasterKey = secret('meili/master_key');
secret('temporal-db/password');
const s3AccessKeyId = secret('s3/access_key_id', () => `lead-${randomBytes(8).toString('hex')}`);
const s3SecretAccessKey = secret('s3/secret_access_key');
secret('grafana/admin_password');
secret('app/credentials_key');
secret('app/bootstrap_admin_password');
// The keys CREDENTIALS_KEY replaced, comma-separated (CREDENTIALS_KEY_PREVIOUS; docs/operations.md, rotation).
keptEmpty('app/credentials_key_previous');

// The API and the workers: MongoDB as their own user of their own database (deploy/mongo-init.js creates it),
// Redis with its password, and S3's identity. Meilisearch's search key is written by deploy/meili-search-key.mjs.
const enc = encodeURIComponent;
derived('app/mongodb_uri', `mongodb://lead-service:${enc(mongoApp)}@mongo:27017/${mongoDb}?authSource=${mongoDb}`);
derived('app/redis_url', `redis://:${enc(redisPassword)}@redis:6379`);
derived('app/s3_access_key_id', s3AccessKeyId);
derived('app/s3_secret_access_key', s3SecretAccessKey);

// Redis reads its password from its config file (the image has no *_FILE variable); the command line adds the rest.
derived('redis/redis.conf', `requirepass ${redisPassword}\n`);
// Meilisearch likewise: its config file instead of MEILI_MASTER_KEY in the environment.
derived('meili/config.toml', `master_key = "${meiliMasterKey}"\n`);
// SeaweedFS's one S3 identity, and the same as the AWS CLI's credentials file for the bucket job.
derived(
  's3/s3.json',
  JSON.stringify({
    identities: [
      {
        name: 'lead-service',
        credentials: [{ accessKey: s3AccessKeyId, secretKey: s3SecretAccessKey }],
        actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
      },
    ],
  }),
);
derived(
  's3/credentials',
  `[default]\naws_access_key_id = ${s3AccessKeyId}\naws_secret_access_key = ${s3SecretAccessKey}\n`,
);
console.log(`secrets ready in ${dir}`);
