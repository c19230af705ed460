import { useTestApi } from '../support/harness';

describe('bad input gets a clear 4xx with {detail}', () => {
  const ctx = useTestApi({ JSON_BODY_LIMIT_BYTES: '2048' });

  const createClient = (body: unknown) =>
    ctx.api.call('POST', '/api/v1/dashboard/admin/clients', { token: ctx.admin, body });

  it('names the missing field in a 422', async () => {
    const res = await createClient({ content_domains: [], admin_email: 'a@example.test' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/name/);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ location: 'body', field: expect.stringMatching(/name/) })]),
    );
  });

  it('rejects wrong types and unknown fields', async () => {
    expect((await createClient({ name: 42, admin_email: 'a@example.test' })).status).toBe(422);
    expect((await createClient({ name: 'x', admin_email: 'a@example.test', surprise: true })).status).toBe(422);
    expect((await createClient({ name: 'x', admin_email: 'not-an-email' })).status).toBe(422);
  });

  it('rejects bad query parameters with their location', async () => {
    const res = await ctx.api.call('GET', '/api/v1/dashboard/admin/clients?page=0', { token: ctx.admin });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ location: 'query', field: 'page' });
  });

  it('answers 400 for malformed JSON and 413 for an oversized body', async () => {
    const malformed = await ctx.api.call('POST', '/api/v1/auth/login', {
      rawBody: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ detail: 'Malformed JSON body' });
    const big = await ctx.api.call('POST', '/api/v1/auth/login', {
      body: { email: 'a@example.test', password: 'x'.repeat(5000) },
    });
    expect(big.status).toBe(413);
    expect(big.body.detail).toMatch(/larger than 2048 bytes/);
  });

  it('keeps serving after bad input', async () => {
    expect((await ctx.api.call('GET', '/api/v1/system/health', { token: ctx.admin })).status).toBe(200);
  });
});
