import { loadConfig } from '../../src/lib/config';
import { createClient, useTestApi, type TestApi } from '../support/harness';

const SECRET = 'connect ECONNRESET mongodb://svc:hunter2@db-7.internal:27017';

/** A 500 whose underlying error carries SECRET: the events status handler fails as a broken engine call would. */
async function internalError(ctx: { api: TestApi; admin: string }) {
  const client = await createClient(ctx.api, ctx.admin, `Errors ${Math.random().toString(36).slice(2, 8)}`);
  const status = jest.spyOn(ctx.api.rt.modules.events.service, 'status').mockRejectedValueOnce(new Error(SECRET));
  try {
    return await ctx.api.call('GET', '/api/v1/events/status', { token: client.triple });
  } finally {
    status.mockRestore();
  }
}

describe('internal error messages in answers', () => {
  it('are shown only when NODE_ENV is explicitly development or test and the API listens on loopback', () => {
    const shown = (env: Record<string, string>) => loadConfig(env).exposeErrorDetails;
    expect(shown({})).toBe(false); // NODE_ENV unset: defaults to development, but was never asked for
    expect(shown({ HOST: '0.0.0.0' })).toBe(false);
    expect(shown({ NODE_ENV: 'development', HOST: '0.0.0.0' })).toBe(false);
    expect(shown({ NODE_ENV: 'test', HOST: '10.1.2.3' })).toBe(false);
    expect(shown({ NODE_ENV: 'development', HOST: '::' })).toBe(false);
    expect(
      shown({
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        CREDENTIALS_KEY: 'a'.repeat(64),
        PUBLIC_BASE_URL: 'https://leads.example',
      }),
    ).toBe(false);
    expect(shown({ NODE_ENV: 'development' })).toBe(true); // HOST defaults to 127.0.0.1
    for (const HOST of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2'])
      expect(shown({ NODE_ENV: 'test', HOST })).toBe(true);
  });

  describe('with NODE_ENV unset', () => {
    const ctx = useTestApi({ NODE_ENV: '' });

    it('answer 500 {detail: "Internal error"} and log the message instead', async () => {
      expect(ctx.api.config.NODE_ENV).toBe('development');
      const res = await internalError(ctx);
      expect([res.status, res.body]).toEqual([500, { detail: 'Internal error' }]);
      expect(JSON.stringify(res.body)).not.toContain('hunter2');
    });
  });

  describe('with NODE_ENV=test on loopback (the tests)', () => {
    const ctx = useTestApi();

    it('answer 500 with the message, for the developer at this machine', async () => {
      const res = await internalError(ctx);
      expect([res.status, res.body]).toEqual([500, { detail: `Internal error: ${SECRET}` }]);
    });
  });
});
