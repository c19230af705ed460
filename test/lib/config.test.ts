import { ConfigError, loadConfig } from '../../src/lib/config';

describe('configuration', () => {
  it('uses the local default when no engine URL is set', () => {
    const config = loadConfig({});
    expect(config.localDefault).toEqual({ mongo: true, redis: true, temporal: true });
    expect(config.RUN_WORKER).toBe(true);
    expect(config.PORT).toBe(8080);
  });

  it('lets configured URLs win and turns the embedded worker off with them', () => {
    const config = loadConfig({ MONGODB_URI: 'mongodb://db:27017', REDIS_URL: 'redis://cache:6379', TEMPORAL_ADDRESS: 'temporal:7233' });
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
});
