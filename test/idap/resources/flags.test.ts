import { ActivityEventModel } from '../../../src/activity/activity-event.model';
import { ResourceModel, idapRef, resourceId, type ResourceType } from '../../../src/idap/resources/resource.model';
import { seedResources } from '../../support/resources';
import { agentToken } from '../../content/content-helpers';
import { createClient, eventually, indexLock, startTestApi, type TestApi } from '../../support/harness';
import { SYNC_ENV, followToEnd, settled } from '../sync/sync-helpers';

describe('resource flags: qualify, reject, tag', () => {
  let api: TestApi;
  let admin: string;
  let a: { client_id: string; triple: string };
  let b: { client_id: string; triple: string };
  const ref = (clientId: string, key: string, type: ResourceType = 'businesses') =>
    idapRef(type, resourceId(clientId, type, key));
  const idOf = (key: string) => resourceId(a.client_id, 'businesses', key);
  const patch = (token: string, key: string, body: unknown, clientId = a.client_id) =>
    api.call('PATCH', `/api/v1/idap/businesses/${resourceId(clientId, 'businesses', key)}/flags`, { token, body });
  const batch = (token: string, body: unknown) => api.call('POST', '/api/v1/idap/flags', { token, body });
  const search = (token: string, q: string, flags?: string) =>
    api.call('GET', `/api/v1/idap/businesses/search?${new URLSearchParams({ q, ...(flags ? { flags } : {}) })}`, {
      token,
    });
  const stored = (key: string) =>
    ResourceModel.findOne({ _id: idOf(key), client_id: a.client_id }).lean<{ flags: string[]; modified_at: Date }>();
  const eventsOf = async (filter: Record<string, unknown>) => {
    await api.rt.worker!.drain.flush();
    return ActivityEventModel.find({ client_id: a.client_id, ...filter })
      .sort({ _id: 1 })
      .lean();
  };

  beforeAll(async () => {
    api = await startTestApi(SYNC_ENV);
    admin = await api.login();
    a = await createClient(api, admin, 'Flags A');
    b = await createClient(api, admin, 'Flags B');
    const names = ['Bakkerij de Zon', 'Bakkerij de Molen', 'Bakkerij Noord', 'Bakkerij Zuid', 'Bakkerij Oost'];
    await seedResources(
      a.client_id,
      names.map((name, n) => ({ type: 'businesses', naturalKey: `p${n}`, data: { name } })),
      indexLock(api),
    );
    await seedResources(
      a.client_id,
      [{ type: 'phones', naturalKey: '+31301234567', data: { number: '+31 30 123 4567' } }],
      indexLock(api),
    );
    await seedResources(
      b.client_id,
      [{ type: 'businesses', naturalKey: 'p0', data: { name: 'Bakkerij elders' } }],
      indexLock(api),
    );
  });
  afterAll(() => api.stop());

  it('qualifies a resource: the answer, a later modified_at, an activity event saying who and which flags', async () => {
    const before = await stored('p0');
    const res = await patch(a.triple, 'p0', { add: ['qualified'], remove: ['new'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      idap_ref: ref(a.client_id, 'p0'),
      flags: ['qualified'],
      data: { name: 'Bakkerij de Zon' },
    });
    expect(Date.parse(res.body.modified_at)).toBeGreaterThan(before!.modified_at.getTime());
    const [event] = await eventually(async () => {
      const found = await eventsOf({ action: 'updateResourceFlags' });
      return found.length ? found : undefined;
    });
    expect(event).toMatchObject({
      actor_id: a.client_id,
      actor_kind: 'client',
      subject_kind: 'businesses',
      subject_id: idOf('p0'),
      label: `+qualified -new ${ref(a.client_id, 'p0')}`,
    });
    // The same change again changes nothing: modified_at stays, and nothing more is recorded.
    const again = await patch(a.triple, 'p0', { add: ['qualified'], remove: ['new'] });
    expect(again.body).toMatchObject({ flags: ['qualified'], modified_at: res.body.modified_at });
    expect(await eventsOf({ action: 'updateResourceFlags' })).toHaveLength(1);
  });

  it('rejecting removes qualified and drops the resource out of search; qualifying brings it back', async () => {
    expect((await search(a.triple, 'zon')).body.items.map((i: { data: { name: string } }) => i.data.name)).toContain(
      'Bakkerij de Zon',
    );
    const rejected = await patch(a.triple, 'p0', { add: ['rejected'] });
    expect(rejected.body.flags).toEqual(['rejected']);
    expect((await search(a.triple, 'zon')).body.items).toEqual([]);
    expect((await search(a.triple, 'zon', 'rejected')).body.items).toHaveLength(1);
    expect((await patch(a.triple, 'p0', { add: ['qualified'] })).body.flags).toEqual(['qualified']);
    expect((await search(a.triple, 'zon')).body.items).toHaveLength(1);
  });

  it("changes many resources in one call, with per-ref results and errors; another tenant's ref is not found", async () => {
    const refs = [
      ref(a.client_id, 'p1'),
      ref(a.client_id, 'p2'),
      ref(a.client_id, '+31301234567', 'phones'),
      ref(b.client_id, 'p0'),
      'idap://media/1c5e9a3f-7b2d-4e6a-8f0c-4d2b6e8a0c51',
      'businesses/42',
      ref(a.client_id, 'p1'),
    ];
    const res = await batch(a.triple, { refs, add: ['rejected', 'wrong-number'] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.results).sort()).toEqual([refs[0], refs[1], refs[2]].sort());
    expect(res.body.results[refs[0]].flags).toEqual(['new', 'rejected', 'wrong-number']);
    expect(res.body.results[refs[2]]).toMatchObject({
      resource_type: 'phones',
      flags: ['new', 'rejected', 'wrong-number'],
    });
    expect(res.body.errors).toEqual({
      [refs[3]]: 'resource_not_found',
      [refs[4]]: 'media refs are served by GET /api/v1/idap/media/{media_id}',
      [refs[5]]: 'Invalid IDAP ref businesses/42: expected idap://<resource_type>/<resource_id>',
    });
    const other = await ResourceModel.findOne({ client_id: b.client_id }).lean<{ flags: string[] }>();
    expect(other!.flags).toEqual(['new']);
    // One event per resource changed, each naming it and its flags.
    const events = await eventsOf({ action: 'batchUpdateFlags' });
    expect(events.map((e) => [e.subject_kind, e.label]).sort()).toEqual(
      [
        ['businesses', `+rejected +wrong-number ${refs[0]}`],
        ['businesses', `+rejected +wrong-number ${refs[1]}`],
        ['phones', `+rejected +wrong-number ${refs[2]}`],
      ].sort(),
    );
  });

  it("answers 404 for a resource that is not the caller's, 422 for a change it cannot make", async () => {
    expect((await patch(a.triple, 'p0', { add: ['qualified'] }, b.client_id)).body).toEqual({
      detail: 'resource_not_found',
    });
    expect((await patch(a.triple, 'p0', { add: ['qualified'] }, b.client_id)).status).toBe(404);
    expect((await patch(a.triple, 'nowhere', { add: ['qualified'] })).status).toBe(404);
    // A UUID in upper case names the same resource.
    const upper = await api.call('PATCH', `/api/v1/idap/businesses/${idOf('p3').toUpperCase()}/flags`, {
      token: a.triple,
      body: { add: ['checked'] },
    });
    expect(upper.body).toMatchObject({ resource_id: idOf('p3'), flags: ['new', 'checked'] });
    expect((await patch(a.triple, 'p3', { remove: ['checked'] })).body.flags).toEqual(['new']);
    const refused: unknown[] = [
      {},
      { add: [] },
      { add: ['qualified'], remove: ['qualified'] },
      { add: ['qualified', 'rejected'] },
      { add: ['Qualified'] },
      { add: ['!rejected'] },
      { add: ['a,b'] },
      { add: ['x'.repeat(33)] },
      { add: Array.from({ length: 17 }, (_, n) => `tag${n}`) },
      { add: ['qualified'], extra: true },
    ];
    for (const body of refused) {
      const res = await patch(a.triple, 'p3', body);
      expect([body, res.status]).toEqual([body, 422]);
    }
    expect(
      (await api.call('PATCH', `/api/v1/idap/media/${idOf('p3')}/flags`, { token: a.triple, body: { add: ['x'] } }))
        .status,
    ).toBe(422);
    expect((await batch(a.triple, { refs: [], add: ['x'] })).status).toBe(422);
    // Past 16 flags on the resource: the single form refuses, the batch reports the ref.
    const tags = Array.from({ length: 15 }, (_, n) => `tag${n}`);
    expect((await patch(a.triple, 'p3', { add: tags })).body.flags).toHaveLength(16);
    const tooMany = await patch(a.triple, 'p3', { add: ['one-more'] });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toBe('too_many_flags');
    expect((await batch(a.triple, { refs: [ref(a.client_id, 'p3')], add: ['one-more'] })).body.errors).toEqual({
      [ref(a.client_id, 'p3')]: 'too_many_flags',
    });
    // Removing still works, and swapping qualified for rejected does not grow the list.
    expect((await patch(a.triple, 'p3', { remove: ['tag0'] })).body.flags).toHaveLength(15);
  });

  it('takes an agent with jobs:submit (recorded as the agent), not one with jobs:read only', async () => {
    const reader = await agentToken(a.client_id, ['jobs:read']);
    expect((await patch(reader, 'p4', { add: ['qualified'] })).status).toBe(403);
    expect((await batch(reader, { refs: [ref(a.client_id, 'p4')], add: ['qualified'] })).status).toBe(403);
    const submitter = await agentToken(a.client_id, ['jobs:submit']);
    expect((await patch(submitter, 'p4', { add: ['qualified'] })).status).toBe(200);
    const events = await eventsOf({ action: 'updateResourceFlags', subject_id: idOf('p4') });
    expect(events).toEqual([expect.objectContaining({ actor_kind: 'agent', role: 'agent' })]);
    expect((await patch(admin, 'p4', { add: ['qualified'] })).status).toBe(422); // a super_admin names the client
    const asAdmin = await api.call('PATCH', `/api/v1/idap/businesses/${idOf('p4')}/flags`, {
      token: admin,
      headers: { 'X-Selected-Client-Id': a.client_id },
      body: { remove: ['qualified'] },
    });
    expect(asAdmin.body.flags).toEqual(['new']);
    expect(await eventsOf({ subject_id: idOf('p4'), actor_kind: 'user' })).toHaveLength(1);
  });

  it('a flag change is seen by the next sync, once', async () => {
    const start = Date.now();
    await settled(start);
    const { cursor } = await followToEnd(api, a.triple, 'businesses');
    const changedAt = Date.now();
    await patch(a.triple, 'p2', { add: ['qualified'] });
    await settled(changedAt);
    const next = await followToEnd(api, a.triple, 'businesses', { cursor });
    expect(next.items.map((i) => [i.resource_id, i.flags])).toEqual([
      [idOf('p2'), ['new', 'wrong-number', 'qualified']],
    ]);
  });
});
