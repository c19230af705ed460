import { setTimeout as sleep } from 'node:timers/promises';
import YAML from 'yaml';
import { createClient, indexLock, startTestApi, type TestApi } from '../../support/harness';
import { ResourceModel, idapRef, resourceId } from '../../../src/idap/resources/resource.model';
import { seedResources, type SeedResource } from '../../support/resources';
import { RESOURCE_WRITE_BUDGET_MS, stampedWrite } from '../../../src/idap/resources/stamped-writes';
import { agentToken } from '../../content/content-helpers';
import { SYNC_ENV, cursorOf, cursorState, followToEnd, listPage, settled, type Listed } from './sync-helpers';

describe('GET /idap/{resource_type}: list and sync', () => {
  let api: TestApi;
  let admin: string;
  let a: { client_id: string; triple: string };
  let b: { client_id: string; triple: string };
  const business = (key: string, data: Record<string, unknown>, flags?: string[]): SeedResource => ({
    type: 'businesses',
    naturalKey: key,
    data,
    flags,
  });
  const list = (token: string, type: string, params: Record<string, string> = {}) =>
    api.call('GET', `/api/v1/idap/${type}?${new URLSearchParams(params)}`, { token });
  const names = (items: Listed[]) => items.map((i) => i.data.name);
  let seededAt: number;

  beforeAll(async () => {
    api = await startTestApi(SYNC_ENV);
    admin = await api.login();
    a = await createClient(api, admin, 'Sync A');
    b = await createClient(api, admin, 'Sync B');
    // One write per business, so each has its own modified_at and the order is the order written.
    for (let n = 0; n < 45; n++) {
      const flags = n === 3 ? ['rejected'] : n % 10 === 0 ? ['new', 'qualified'] : undefined;
      await seedResources(a.client_id, [business(`a${n}`, { name: `A${n}`, city: 'Utrecht' }, flags)], indexLock(api));
    }
    await seedResources(a.client_id, [{ type: 'contacts', naturalKey: 'c1', data: { name: 'Jan' } }], indexLock(api));
    await seedResources(b.client_id, [business('b1', { name: 'B1' })], indexLock(api));
    seededAt = Date.now();
    await settled(seededAt);
  });
  afterAll(() => api.stop());

  it("pages through the tenant's resources of one type, oldest change first, to a cursor that syncs later", async () => {
    const first = await listPage(api, a.triple, 'businesses', { limit: '20' });
    expect(first).toMatchObject({ resource_type: 'businesses', count: 20, has_more: true });
    expect(names(first.items)).toEqual(Array.from({ length: 20 }, (_, n) => `A${n}`));
    expect(first.items[0]).toMatchObject({
      idap_ref: idapRef('businesses', resourceId(a.client_id, 'businesses', 'a0')),
      tenant_id: a.client_id,
      flags: ['new', 'qualified'],
      data: { name: 'A0', city: 'Utrecht' },
    });
    const all = await followToEnd(api, a.triple, 'businesses', { limit: '20' });
    expect(all.pages).toBe(3);
    // Every business of A once, the rejected one included; no contact, nothing of B.
    expect(names(all.items)).toEqual(Array.from({ length: 45 }, (_, n) => `A${n}`));
    const stamps = all.items.map((i) => i.modified_at);
    expect([...stamps].sort()).toEqual(stamps);
    // The end: has_more false, and a cursor that answers nothing until something changes.
    expect(all.cursor).toEqual(expect.any(String));
    expect((await listPage(api, a.triple, 'businesses', { cursor: all.cursor })).items).toEqual([]);
    const changedAt = Date.now();
    await seedResources(
      a.client_id,
      [business('a7', { city: 'Zeist' }), business('a46', { name: 'A46' })],
      indexLock(api),
    );
    // Within the settle lag the sync does not read them yet, so a write still on its way is never passed by.
    expect((await listPage(api, a.triple, 'businesses', { cursor: all.cursor })).items).toEqual([]);
    await settled(changedAt);
    const later = await followToEnd(api, a.triple, 'businesses', { cursor: all.cursor });
    // Both written in one call share one modified_at, so their order is their ids' (derived from a random
    // tenant id): compare them by name.
    const byName = (x: { name?: unknown }, y: { name?: unknown }) => String(x.name).localeCompare(String(y.name));
    expect(later.items.map((i) => i.data).sort(byName)).toEqual([{ name: 'A46' }, { name: 'A7', city: 'Zeist' }]);
    expect((await listPage(api, b.triple, 'businesses')).items.map((i) => i.data.name)).toEqual(['B1']);
    expect(names((await listPage(api, a.triple, 'contacts')).items)).toEqual(['Jan']);
  });

  it('starts at modified_since (inclusive); filters by flags as search does, leaving nothing out by default', async () => {
    const all = (await followToEnd(api, a.triple, 'businesses', { limit: '100' })).items;
    const tenth = all[10];
    const since = await followToEnd(api, a.triple, 'businesses', { modified_since: tenth.modified_at });
    expect(since.items[0].resource_id).toBe(tenth.resource_id);
    expect(since.items.length).toBe(all.length - 10);
    const qualified = await followToEnd(api, a.triple, 'businesses', { flags: 'qualified' });
    expect(names(qualified.items)).toEqual(['A0', 'A10', 'A20', 'A30', 'A40']);
    const notRejected = await followToEnd(api, a.triple, 'businesses', { flags: '!rejected', limit: '100' });
    expect(names(notRejected.items)).not.toContain('A3');
    expect(notRejected.items.length).toBe(all.length - 1);
    expect(names((await followToEnd(api, a.triple, 'businesses', { flags: 'rejected' })).items)).toEqual(['A3']);
    // The cursor keeps its filter: the next page of a qualified sync needs no flags, and refuses others.
    const page = await listPage(api, a.triple, 'businesses', { flags: 'qualified', limit: '2' });
    const next = await listPage(api, a.triple, 'businesses', { cursor: page.next_cursor, limit: '2' });
    expect(names(next.items)).toEqual(['A20', 'A30']);
    expect((await list(a.triple, 'businesses', { cursor: page.next_cursor, flags: 'qualified' })).status).toBe(200);
    const other = await list(a.triple, 'businesses', { cursor: page.next_cursor, flags: 'rejected' });
    expect(other.status).toBe(422);
    expect(other.body.errors[0]).toMatchObject({ location: 'query', field: 'cursor' });
  });

  it('projects fields and answers yaml and md', async () => {
    const projected = await listPage(api, a.triple, 'businesses', { limit: '2', fields: 'name' });
    expect(projected.items.map((i) => i.data)).toEqual([{ name: 'A0' }, { name: 'A1' }]);
    const yaml = await list(a.triple, 'businesses', { limit: '2', format: 'yaml' });
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(YAML.parse(yaml.body)).toMatchObject({ count: 2, has_more: true, items: [{ data: { name: 'A0' } }, {}] });
    const md = await list(a.triple, 'businesses', { limit: '2', format: 'md', fields: 'name,city' });
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.body).toContain('| # | name | city | flags | modified_at | idap_ref |');
    expect(md.body).toContain('| 1 | A0 | Utrecht | new, qualified |');
    expect(md.body).toMatch(/\nnext_cursor: [\w-]+\n$/);
  });

  it('refuses a cursor it did not issue, for another type, or with modified_since, and bad bounds (422)', async () => {
    const { next_cursor } = await listPage(api, a.triple, 'businesses', { limit: '1' });
    const state = cursorState(next_cursor);
    expect(state).toEqual({ v: 1, type: 'businesses', flags: '', at: expect.any(Number), id: expect.any(String) });
    const refused: Record<string, string>[] = [
      { cursor: 'not-a-cursor' },
      { cursor: cursorOf({ ...state, v: 2 }) },
      { cursor: cursorOf({ ...state, at: 'yesterday' }) },
      { cursor: cursorOf({ ...state, id: 'x' }) },
      { cursor: cursorOf({ ...state, extra: 1 }) },
      { cursor: cursorOf([1, 2]) },
      { cursor: 'a+b/c=' },
      { cursor: next_cursor, modified_since: '2025-01-01T00:00:00Z' },
      { modified_since: 'yesterday' },
      { limit: '0' },
      { limit: '101' },
      { format: 'xlsx' },
    ];
    for (const params of refused) {
      const res = await list(a.triple, 'businesses', params);
      expect([params, res.status, typeof res.body.detail]).toEqual([params, 422, 'string']);
    }
    expect((await list(a.triple, 'contacts', { cursor: next_cursor })).status).toBe(422);
    expect((await list(a.triple, 'media')).status).toBe(422);
    expect((await list(a.triple, 'nonsense')).status).toBe(422);
  });

  it('is scoped like every tenant record and open to jobs:read agents', async () => {
    expect((await list(admin, 'businesses')).status).toBe(422); // a super_admin names the client
    const selected = await api.call('GET', '/api/v1/idap/businesses?limit=1', {
      token: admin,
      headers: { 'X-Selected-Client-Id': b.client_id },
    });
    expect(selected.body.items.map((i: Listed) => i.data.name)).toEqual(['B1']);
    const reader = await agentToken(a.client_id, ['jobs:read']);
    expect(names((await listPage(api, reader, 'businesses', { limit: '1' })).items)).toEqual(['A0']);
    expect((await list(await agentToken(a.client_id, ['content:write']), 'businesses')).status).toBe(403);
    expect((await api.call('GET', '/api/v1/idap/businesses')).status).toBe(401);
    // A cursor is a position, nothing more: with another tenant's, a caller lists its own resources after it.
    const { next_cursor } = await listPage(api, a.triple, 'businesses', { limit: '1' });
    expect(names((await listPage(api, b.triple, 'businesses', { cursor: next_cursor })).items)).toEqual(['B1']);
  });

  it('leaves modified_at alone when a write changes nothing a reader sees', async () => {
    const id = resourceId(a.client_id, 'businesses', 'a1');
    const stored = () => ResourceModel.findOne({ _id: id, client_id: a.client_id }).lean();
    const before = await stored();
    await seedResources(a.client_id, [{ ...business('a1', { name: 'A1' }), sourceJobId: 'job-again' }], indexLock(api));
    const after = await stored();
    expect(after!.modified_at).toEqual(before!.modified_at);
    expect(after!.source_job_ids).toContain('job-again');
    await seedResources(a.client_id, [business('a1', { rating: 4.5 })], indexLock(api));
    const changed = await stored();
    expect(changed!.modified_at.getTime()).toBeGreaterThan(before!.modified_at.getTime());
    expect(changed!.data).toEqual({ name: 'A1', city: 'Utrecht', rating: 4.5 });
  });

  it('stamps again what a write acknowledged later than its budget changed, and only that', async () => {
    // The budget is the subject: a write that takes longer than it leaves its resources stamped after it ended.
    const write = (key: string, takesMs: number) =>
      stampedWrite(async (stamp) => {
        const id = resourceId(a.client_id, 'businesses', key);
        await ResourceModel.collection.insertOne({
          _id: id as never,
          client_id: a.client_id,
          resource_type: 'businesses',
          data: { name: key },
          flags: ['new'],
          created_at: stamp,
          modified_at: stamp,
        });
        await sleep(takesMs);
        return { result: { stamp, ended: Date.now() }, changed: [{ clientId: a.client_id, id }] };
      });
    const stampOf = async (key: string) =>
      (await ResourceModel.findOne({ _id: resourceId(a.client_id, 'businesses', key), client_id: a.client_id }).lean<{
        modified_at: Date;
      }>())!.modified_at.getTime();
    const slow = await write('slow', RESOURCE_WRITE_BUDGET_MS + 300);
    expect(await stampOf('slow')).toBeGreaterThanOrEqual(slow.ended);
    // A write within its budget keeps its stamp (one that a loaded machine made slower than that is stamped again).
    const quick = await write('quick', 0);
    const inBudget = quick.ended - quick.stamp.getTime() <= RESOURCE_WRITE_BUDGET_MS;
    expect(await stampOf('quick')).toBe(inBudget ? quick.stamp.getTime() : await stampOf('quick'));
  });
});
