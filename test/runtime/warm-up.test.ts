import { RequestValidator } from 'express-openapi-validator/dist/middlewares/openapi.request.validator';
import { startTestApi, createClient, type TestApi } from '../support/harness';
import { capturedLogs } from '../support/log-capture';
import { compileServiceContract } from '../../src/app';

/** Counts the request validators the validator compiles from now on (it compiles one per operation on first use). */
function countCompiles() {
  const proto = RequestValidator.prototype as unknown as { buildMiddleware: (...args: unknown[]) => unknown };
  const build = proto.buildMiddleware;
  const compiled: string[] = [];
  proto.buildMiddleware = function (this: unknown, ...args: unknown[]) {
    compiled.push(String(args[3]));
    return build.apply(this, args);
  };
  return { compiled, restore: () => (proto.buildMiddleware = build) };
}

describe('warming up before the API listens (WARM_UP_ON_START)', () => {
  const { lines, destination: sink } = capturedLogs();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ WARM_UP_ON_START: 'true', LOG_LEVEL: 'info' }, { logDestination: sink });
  });
  afterAll(() => api?.stop());

  it('compiles every operation before the first request: requests of several kinds compile nothing more', async () => {
    // One validator per media type an operation's body may have, and one for a request without a body where the
    // operation does not require one: an operation whose body is optional and may be JSON or a form (the approve
    // link's POST) has three.
    const { operations } = await compileServiceContract({ VALIDATE_RESPONSES: false });
    const validators = operations.reduce((n, op) => {
      const body = op.schema.requestBody as { required?: boolean; content?: Record<string, unknown> } | undefined;
      return n + (body?.required ? 0 : 1) + Object.keys(body?.content ?? {}).length;
    }, 0);
    expect(validators).toBeGreaterThan(operations.length);
    const warmed = lines.find((l) => l.msg === 'warmed up: request validators compiled, places indexed');
    expect(warmed).toMatchObject({ validators, regions: expect.any(Number) });
    expect(warmed!.regions as number).toBeGreaterThan(1000);

    const counter = countCompiles();
    try {
      const admin = await api.login(); // a JSON body
      const client = await createClient(api, admin, 'Warm Co'); // another, with a token
      const listed = await api.call('GET', '/api/v1/dashboard/client/jobs', { token: client.triple }); // none
      const submitted = await api.call('POST', '/api/v1/dashboard/client/jobs/maps-scrape/submit', {
        token: client.triple,
        body: { query: 'dentists', country_code: 'LU', max_locations: 1 },
      });
      expect([listed.status, submitted.status]).toEqual([200, 200]);
      expect(counter.compiled).toEqual([]);
    } finally {
      counter.restore();
    }
  });

  it('is off in a service that says so: then the first request of an operation compiles its validator', async () => {
    const cold = await startTestApi({ WARM_UP_ON_START: 'false' });
    const counter = countCompiles();
    try {
      await cold.login();
      expect(counter.compiled).toEqual(['POST-/api/v1/auth/login-application/json']);
    } finally {
      counter.restore();
      await cold.stop();
    }
  });
});
