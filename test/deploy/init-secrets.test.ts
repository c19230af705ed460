import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/lib/config';

const root = path.join(__dirname, '..', '..');
const script = path.join(root, 'deploy', 'init-secrets.mjs');

/** Runs compose's `secrets` job as compose does (node on the script), into `dir`. */
const generate = (dir: string, env: NodeJS.ProcessEnv = {}) =>
  execFileSync(process.execPath, [script], {
    env: { PATH: process.env.PATH, SECRETS_DIR: dir, ...env },
    stdio: 'pipe',
  }).toString();

/** Every file under `dir`, relative, with its content. */
const snapshot = (dir: string): Record<string, string> =>
  Object.fromEntries(
    (fs.readdirSync(dir, { recursive: true }) as string[])
      .filter((f) => fs.statSync(path.join(dir, f)).isFile())
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
  );

describe("compose's secrets job (deploy/init-secrets.mjs)", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-secrets-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('generates each secret once, in the folder of the service that reads it, and never replaces one', () => {
    generate(dir);
    const first = snapshot(dir);
    expect(Object.keys(first)).toEqual([
      'app/bootstrap_admin_password',
      'app/credentials_key',
      'app/credentials_key_previous',
      'app/mongodb_uri',
      'app/redis_url',
      'app/s3_access_key_id',
      'app/s3_secret_access_key',
      'grafana/admin_password',
      'meili/config.toml',
      'meili/master_key',
      'mongo/app_password',
      'mongo/root_password',
      'redis/password',
      'redis/redis.conf',
      's3/access_key_id',
      's3/credentials',
      's3/s3.json',
      's3/secret_access_key',
      'temporal-db/password',
    ]);
    // 32 random bytes each, all different.
    const generated = ['mongo/root_password', 'mongo/app_password', 'redis/password', 'meili/master_key'];
    for (const name of generated) expect(first[name]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(generated.map((name) => first[name])).size).toBe(generated.length);
    // Readable by the services' own users, written by none of them.
    expect(fs.statSync(path.join(dir, 'app/credentials_key')).mode & 0o777).toBe(0o444);
    // A second start (a restart, `up` after `down`, an upgrade) finds the same secrets.
    expect(generate(dir)).not.toContain('created');
    expect(snapshot(dir)).toEqual(first);
  });

  it('derives the connection strings and the engines’ config files from the secrets, and rotates them with one', () => {
    generate(dir);
    const s = snapshot(dir);
    expect(s['app/mongodb_uri']).toBe(
      `mongodb://lead-service:${s['mongo/app_password']}@mongo:27017/lead_service?authSource=lead_service`,
    );
    expect(s['app/redis_url']).toBe(`redis://:${s['redis/password']}@redis:6379`);
    expect(s['redis/redis.conf']).toBe(`requirepass ${s['redis/password']}\n`);
    expect(s['meili/config.toml']).toBe(`master_key = "${s['meili/master_key']}"\n`);
    expect(JSON.parse(s['s3/s3.json']).identities[0].credentials).toEqual([
      { accessKey: s['s3/access_key_id'], secretKey: s['s3/secret_access_key'] },
    ]);
    expect(s['app/s3_secret_access_key']).toBe(s['s3/secret_access_key']);
    // MongoDB's init script creates that very user, in that database, with the password of that file as mounted.
    const mongoInit = fs.readFileSync(path.join(root, 'deploy', 'mongo-init.js'), 'utf8');
    expect(mongoInit).toContain("readFileSync('/run/secrets/mongo/app_password'");
    expect(mongoInit).toContain("user: 'lead-service'");
    expect(mongoInit).toContain("process.env.MONGODB_DB || 'lead_service'");
    expect(loadConfig({}).MONGODB_DB).toBe('lead_service');
    // Rotation: an operator writes a new password in place of the old; the next run carries it everywhere.
    fs.rmSync(path.join(dir, 'redis/password'), { force: true });
    fs.writeFileSync(path.join(dir, 'redis/password'), 'rotated-password-of-32-characters\n');
    generate(dir);
    const after = snapshot(dir);
    expect(after['redis/redis.conf']).toBe('requirepass rotated-password-of-32-characters\n');
    expect(after['app/redis_url']).toBe('redis://:rotated-password-of-32-characters@redis:6379');
    expect(after['mongo/app_password']).toBe(s['mongo/app_password']);
  });

  it('writes what the configuration of the API and the workers reads from their files, as compose names them', () => {
    generate(dir);
    // Meilisearch's key is the meili-key job's (test/deploy/meili-search-key.test.ts); here, a stand-in.
    fs.writeFileSync(path.join(dir, 'app/meilisearch_api_key'), 'search-key');
    const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { environment: Record<string, string> }>;
    };
    const env = Object.fromEntries(
      Object.entries(compose.services.api.environment)
        // Compose fills ${NAME:-default} with the default when .env does not set it.
        .map(([name, value]) => [name, String(value).replace(/^\$\{\w+:-(.*)\}$/, '$1')])
        .map(([name, value]) => [name, value.replace(/^\/run\/secrets\/app\//, `${dir}/app/`)]),
    );
    const config = loadConfig(env);
    expect(config.MONGODB_URI).toContain('@mongo:27017/lead_service');
    expect(config.REDIS_URL).toMatch(/^redis:\/\/:[0-9a-f]{64}@redis:6379$/);
    expect(config.CREDENTIALS_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(config.CREDENTIALS_KEY_PREVIOUS).toBeUndefined();
    expect(config.BOOTSTRAP_ADMIN_PASSWORD).toMatch(/^[0-9a-f]{64}$/);
    expect(config.MEILISEARCH_API_KEY).toBe('search-key');
    expect(config.S3_ACCESS_KEY_ID).toMatch(/^lead-[0-9a-f]{16}$/);
    expect(config.NODE_ENV).toBe('production');
    expect(config.METRICS_PORT).toBe(9464);
  });

  it('refuses to run without the folder to keep them in, and stops on a secret emptied by hand', () => {
    expect(() => execFileSync(process.execPath, [script], { env: { PATH: process.env.PATH }, stdio: 'pipe' })).toThrow(
      /SECRETS_DIR/,
    );
    generate(dir);
    fs.rmSync(path.join(dir, 'meili/master_key'));
    fs.writeFileSync(path.join(dir, 'meili/master_key'), '');
    expect(() => generate(dir)).toThrow(/meili\/master_key is empty/);
  });
});
