import { AccessTokenModel } from '../../src/agents/access-token.model';
import { startTestApi, type TestApi } from '../support/harness';

describe('tenant guard on tenant-owned collections', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.stop());

  it('refuses a query that names no tenant', async () => {
    await expect(AccessTokenModel.find({ scopes: 'jobs:read' }).lean()).rejects.toThrow(/tenant filter missing/);
    await expect(AccessTokenModel.updateMany({}, { revoked_at: new Date() })).rejects.toThrow(/tenant filter missing/);
    await expect(AccessTokenModel.aggregate([{ $match: {} }])).rejects.toThrow(/tenant filter missing/);
  });

  it('allows a tenant-filtered query and an explicit cross-tenant one', async () => {
    await expect(AccessTokenModel.find({ client_id: 'c1' }).lean()).resolves.toEqual([]);
    await expect(AccessTokenModel.find({}, null, { allTenants: true }).lean()).resolves.toEqual([]);
  });
});
