import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/lib/config';

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

  it('requires an encryption key in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/CREDENTIALS_KEY: required in production/);
  });

  it('has every variable it reads described in the README', () => {
    const root = path.join(__dirname, '../..');
    const source = fs.readFileSync(path.join(root, 'src/lib/config.ts'), 'utf8');
    const schema = source.slice(source.indexOf('const schema = z.object({'), source.indexOf('\n});'));
    const variables = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Architecture'));
    expect(variables.length).toBeGreaterThan(30);
    expect(variables.filter((v) => !table.includes(`\`${v}\``))).toEqual([]);
  });
});
