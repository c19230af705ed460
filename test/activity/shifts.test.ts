import { randomUUID } from 'node:crypto';
import { createClient, useTestApi } from '../support/harness';
import { at, seedEvents, userActor } from './activity-helpers';

const ctx = useTestApi();
const list = (token: string, query: string, headers: Record<string, string> = {}) =>
  ctx.api.call('GET', `/api/v1${query.replace(/:/g, '%3A')}`, { token, headers });

describe('shifts', () => {
  let acme: Awaited<ReturnType<typeof createClient>>;
  const ada = userActor(randomUUID(), 'ada@acme.test');
  const bob = userActor(randomUUID(), 'bob@acme.test', 'brand_admin');

  beforeAll(async () => {
    acme = await createClient(ctx.api, ctx.admin, 'Acme Shifts');
    // ada on 2025-03-14: gaps of 29:59 (same shift), then exactly 30:00 (splits), then 31:00 (splits).
    const base = '2025-03-14T08:00:00.000Z';
    await seedEvents(acme.client_id, ada, [at(base, 0), at(base, 29.99), at(base, 59.99), at(base, 90.99)]);
    // bob works across midnight: 23:40 on the 15th to 00:20 on the 16th, with a publish at 00:10.
    await seedEvents(acme.client_id, bob, ['2025-03-15T23:40:00Z', '2025-03-15T23:55:00Z', '2025-03-16T00:20:00Z']);
    await seedEvents(acme.client_id, bob, ['2025-03-16T00:10:00Z'], {
      action: 'publishPost',
      shipped: 'posts_published',
      label: 'Spring hours',
    });
  });

  it('splits at gap_minutes: a gap just under joins, a gap of gap_minutes or more starts a new shift', async () => {
    const res = await list(acme.triple, '?date=2025-03-14');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: '2025-03-14', to: '2025-03-14', gap_minutes: 30, total: 3 });
    expect(res.body.shifts.map((s: any) => [s.started_at, s.ended_at, s.event_count])).toEqual([
      ['2025-03-14T08:00:00.000Z', '2025-03-14T08:29:59.400Z', 2],
      [at('2025-03-14T08:00:00.000Z', 59.99).toISOString(), at('2025-03-14T08:00:00.000Z', 59.99).toISOString(), 1],
      [at('2025-03-14T08:00:00.000Z', 90.99).toISOString(), at('2025-03-14T08:00:00.000Z', 90.99).toISOString(), 1],
    ]);
    expect(res.body.shifts[0]).toMatchObject({
      actor_id: ada.id,
      actor_kind: 'user',
      actor_name: 'ada@acme.test',
      role: 'client_user',
      duration_minutes: 29,
      shipped_count: 0,
    });
    // A larger gap joins them all.
    const wide = await list(acme.triple, '?date=2025-03-14&gap_minutes=32');
    expect(wide.body.shifts.map((s: any) => s.event_count)).toEqual([4]);
  });

  it('reports a shift across midnight UTC whole, on both days', async () => {
    for (const date of ['2025-03-15', '2025-03-16']) {
      const res = await list(acme.triple, `?date=${date}`);
      expect(res.body.shifts).toEqual([
        expect.objectContaining({
          actor_id: bob.id,
          role: 'brand_admin',
          started_at: '2025-03-15T23:40:00.000Z',
          ended_at: '2025-03-16T00:20:00.000Z',
          duration_minutes: 40,
          event_count: 4,
          shipped_count: 1,
        }),
      ]);
    }
    const both = await list(acme.triple, '?from=2025-03-14&to=2025-03-16');
    expect(both.body.total).toBe(4);
  });

  it('filters by actor_id and role', async () => {
    expect((await list(acme.triple, `?from=2025-03-14&to=2025-03-16&actor_id=${bob.id}`)).body.total).toBe(1);
    expect((await list(acme.triple, '?from=2025-03-14&to=2025-03-16&role=client_user')).body.total).toBe(3);
    expect((await list(acme.triple, '?from=2025-03-14&to=2025-03-16&role=agent')).body.total).toBe(0);
  });

  it('accepts a window of 31 days and refuses 32, date with from/to, and from after to', async () => {
    expect((await list(acme.triple, '?from=2025-03-01&to=2025-03-31')).status).toBe(200);
    const tooLong = await list(acme.triple, '?from=2025-03-01&to=2025-04-01');
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail).toMatch(/31 days/);
    expect((await list(acme.triple, '?date=2025-03-14&from=2025-03-14')).status).toBe(422);
    expect((await list(acme.triple, '?from=2025-03-15&to=2025-03-14')).status).toBe(422);
    expect((await list(acme.triple, '?from=2025-03-14&to=2025-03-14&gap_minutes=0')).status).toBe(422);
  });

  it('defaults to today (UTC)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const res = await list(acme.triple, '');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: today, to: today });
  });

  it('gives one shift its hourly histogram and what it shipped; nothing there is 404', async () => {
    const q = `?actor_id=${bob.id}&started_at=2025-03-15T23:40:00.000Z&ended_at=2025-03-16T00:20:00.000Z`;
    const res = await list(acme.triple, `/detail${q}`);
    expect(res.status).toBe(200);
    expect(res.body.hourly).toEqual([
      { hour: '2025-03-15T23:00:00.000Z', events: 2, shipped: 0 },
      { hour: '2025-03-16T00:00:00.000Z', events: 2, shipped: 1 },
    ]);
    expect(res.body.shipped.posts_published).toEqual([
      { id: 'p-0', label: 'Spring hours', at: '2025-03-16T00:10:00.000Z' },
    ]);
    expect(res.body.shipped.jobs_completed).toEqual([]);
    const none = await list(
      acme.triple,
      `/detail?actor_id=${ada.id}&started_at=2025-03-15T23:40:00Z&ended_at=2025-03-16T00:20:00Z`,
    );
    expect(none.status).toBe(404);
  });

  it('is client scoped: another client sees none of it, a super_admin must choose a client', async () => {
    const other = await createClient(ctx.api, ctx.admin, 'Other Shifts');
    expect((await list(other.triple, '?from=2025-03-14&to=2025-03-16')).body.total).toBe(0);
    expect(
      (
        await list(
          other.triple,
          `/detail?actor_id=${bob.id}&started_at=2025-03-15T23:40:00Z&ended_at=2025-03-16T00:20:00Z`,
        )
      ).status,
    ).toBe(404);
    expect((await list(ctx.admin, '?date=2025-03-14')).status).toBe(422);
    const chosen = await list(ctx.admin, '?date=2025-03-14', { 'X-Selected-Client-Id': acme.client_id });
    expect(chosen.body.total).toBe(3);
    expect((await list(ctx.admin, '?date=2025-03-14', { 'X-Selected-Client-Id': randomUUID() })).status).toBe(422);
    expect((await list('', '?date=2025-03-14')).status).toBe(401);
  });
});
