import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONFIG_ENV_NAMES, CONFIG_KEYS, ConfigError, loadConfig } from '../../src/lib/config';
import { writeConcernFor } from '../../src/lib/engines/mongo';

describe('configuration', () => {
  it('uses the local default when no engine URL is set', () => {
    const config = loadConfig({});
    expect(config.localDefault).toEqual({ mongo: true, redis: true, temporal: true });
    expect(config.RUN_WORKER).toBe(true);
    expect(config.PORT).toBe(8080);
  });

  it('lets configured URLs win and turns the embedded worker off with them', () => {
    const config = loadConfig({
      MONGODB_URI: 'mongodb://db:27017',
      REDIS_URL: 'redis://cache:6379',
      TEMPORAL_ADDRESS: 'temporal:7233',
    });
    expect(config.localDefault).toEqual({ mongo: false, redis: false, temporal: false });
    expect(config.RUN_WORKER).toBe(false);
  });

  it('names every bad value, and hides secret ones', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'eighty', TEMPORAL_ADDRESS: 'nohost', CREDENTIALS_KEY: 'short-secret' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toContain('PORT:');
    expect(message).toContain('TEMPORAL_ADDRESS: must be host:port');
    expect(message).toContain('CREDENTIALS_KEY:');
    expect(message).not.toContain('short-secret');
  });

  it('reads a setting from the file that <NAME>_FILE names, and refuses both forms or an unreadable file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-files-'));
    try {
      const write = (name: string, text: string) => {
        fs.writeFileSync(path.join(dir, name), text, { mode: 0o400 });
        return path.join(dir, name);
      };
      const key = 'a'.repeat(64);
      const config = loadConfig({
        CREDENTIALS_KEY_FILE: write('credentials_key', `${key}\n`),
        MONGODB_URI_FILE: write('mongodb_uri', 'mongodb://lead:p%40ss@mongo:27017/?authSource=lead_service'),
        REDIS_URL: 'redis://cache:6379',
        // Compose passes an unset optional setting as empty: that is no setting, so the file form wins.
        MEILISEARCH_API_KEY: '',
        MEILISEARCH_API_KEY_FILE: write('meili', 'search-key\r\n'),
      });
      // One final line break is dropped (echo, editors); nothing else is touched.
      expect(config.CREDENTIALS_KEY).toBe(key);
      expect(config.MONGODB_URI).toBe('mongodb://lead:p%40ss@mongo:27017/?authSource=lead_service');
      expect(config.MEILISEARCH_API_KEY).toBe('search-key');
      expect(config.localDefault.mongo).toBe(false);
      // An empty file is no setting, as an empty variable is.
      expect(
        loadConfig({ CREDENTIALS_KEY_PREVIOUS_FILE: write('previous', '') }).CREDENTIALS_KEY_PREVIOUS,
      ).toBeUndefined();
      expect(() =>
        loadConfig({ CREDENTIALS_KEY: key, CREDENTIALS_KEY_FILE: path.join(dir, 'credentials_key') }),
      ).toThrow(/CREDENTIALS_KEY, CREDENTIALS_KEY_FILE: set one or the other/);
      expect(() => loadConfig({ REDIS_URL_FILE: path.join(dir, 'missing') })).toThrow(
        /REDIS_URL_FILE: cannot read .*missing \(ENOENT\)/,
      );
      // A bad value read from a file is never echoed: a connection string carries its password.
      const bad = write('bad_uri', 'postgres://lead:hunter2hunter2@db/x');
      expect(() => loadConfig({ MONGODB_URI_FILE: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ MONGODB_URI_FILE: bad })).not.toThrow(/hunter2/);
      expect(() => loadConfig({ MONGODB_URI_FILE: bad })).toThrow(/MONGODB_URI: .*\(got "\*\*\*"\)/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // Every setting has its file form, and nothing else is read.
    expect(CONFIG_ENV_NAMES.length).toBe(CONFIG_KEYS.length * 2);
    expect(CONFIG_ENV_NAMES).toEqual(expect.arrayContaining(['MONGODB_URI_FILE', 'CREDENTIALS_KEY_FILE', 'PORT']));
  });

  it('requires an encryption key in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/CREDENTIALS_KEY: required in production/);
  });

  it('refuses a headers deadline longer than the request deadline it is part of', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/,
    );
    expect(
      loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '4000', HTTP_REQUEST_TIMEOUT_MS: '4000' }).HTTP_REQUEST_TIMEOUT_MS,
    ).toBe(4000);
  });

  it('has every variable it reads described in the README', () => {
    const root = path.join(__dirname, '../..');
    const variables = CONFIG_KEYS;
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Architecture'));
    expect(variables.length).toBeGreaterThan(30);
    expect(variables.filter((v) => !table.includes(`\`${v}\``))).toEqual([]);
  });

  it('accepts every MongoDB URI the driver accepts, replica sets included, and refuses what it does not', () => {
    for (const uri of [
      'mongodb://db:27017',
      'mongodb://h1:27017,h2:27017,h3:27017/?replicaSet=rs0',
      'mongodb://user:p%40ss@h1,h2/admin?replicaSet=rs0&w=majority',
      'mongodb+srv://user:pass@cluster0.example.mongodb.net/?retryWrites=true',
    ]) {
      expect(loadConfig({ MONGODB_URI: uri }).MONGODB_URI).toBe(uri);
    }
    for (const uri of ['db:27017', 'http://db:27017', 'mongodb://']) {
      expect(() => loadConfig({ MONGODB_URI: uri })).toThrow(/MONGODB_URI: must be a MongoDB connection string/);
    }
  });

  it('takes Temporal TLS material as PEM text or a file path, both halves or neither', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-'));
    const certFile = path.join(dir, 'client.pem');
    fs.writeFileSync(certFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const inlineKey = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
      TEMPORAL_TLS_CERT: certFile,
      TEMPORAL_TLS_KEY: inlineKey,
    });
    expect([config.TEMPORAL_TLS_CERT, config.TEMPORAL_TLS_KEY]).toEqual([certFile, inlineKey]);
    expect(() => loadConfig({ TEMPORAL_TLS_CERT: certFile })).toThrow(
      /TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY: set both or neither/,
    );
    expect(() => loadConfig({ TEMPORAL_TLS_CERT: path.join(dir, 'missing.pem'), TEMPORAL_TLS_KEY: inlineKey })).toThrow(
      /TEMPORAL_TLS_CERT: must be PEM text or the path of a readable PEM file/,
    );
    expect(loadConfig({ TEMPORAL_API_KEY: 'tmprl-key' }).TEMPORAL_API_KEY).toBe('tmprl-key');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads Redis Sentinel as host:port pairs, with REDIS_URL for the credentials', () => {
    const config = loadConfig({ REDIS_URL: 'redis://:pw@primary/2', REDIS_SENTINELS: 's1:26379, s2:26380' });
    expect([config.REDIS_SENTINELS, config.REDIS_SENTINEL_NAME]).toEqual([
      [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
      'mymaster',
    ]);
    expect(() => loadConfig({ REDIS_SENTINELS: 's1:26379' })).toThrow(/REDIS_URL: required with REDIS_SENTINELS/);
    expect(() => loadConfig({ REDIS_URL: 'redis://x', REDIS_SENTINELS: 's1' })).toThrow(/REDIS_SENTINELS: must be/);
  });

  it('requires the public address in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', CREDENTIALS_KEY: 'a'.repeat(64) })).toThrow(
      /PUBLIC_BASE_URL: required in production/,
    );
  });

  it('waits for a majority on a replica set, unless the URI says otherwise', () => {
    const majority = { writeConcern: { w: 'majority', journal: true } };
    expect(writeConcernFor('mongodb://h1,h2,h3/?replicaSet=rs0')).toEqual(majority);
    expect(writeConcernFor('mongodb+srv://u:p@cluster0.example.mongodb.net/')).toEqual(majority);
    expect(writeConcernFor('mongodb://h1,h2/?replicaSet=rs0&w=1')).toEqual({});
    expect(writeConcernFor('mongodb://db:27017')).toEqual({});
  });
});
