import { randomUUID } from 'node:crypto';
import { findAnomalies } from '../../src/activity/anomalies';
import { createClient, useTestApi } from '../support/harness';
import { seedEvents, userActor } from './activity-helpers';

const ctx = useTestApi();
const DAY = 24 * 3600_000;
const NOW = new Date('2025-03-14T09:30:00Z');
const dayAt = (offset: number, hour = 10) => new Date(Date.UTC(2025, 2, 14 + offset, hour));

/** `perDay(offset)` events on each day from 36 days before NOW's day to NOW's day. */
function series(actor: string, perDay: (offset: number) => number, extra: { action?: string; shipped?: any } = {}) {
  const out = [];
  for (let offset = -36; offset <= 0; offset++) {
    for (let i = 0; i < perDay(offset); i++)
      out.push({
        actor_id: actor,
        action: extra.action ?? 'updatePost',
        shipped: extra.shipped ?? null,
        at: new Date(dayAt(offset).getTime() + i * 1000),
      });
  }
  return out;
}

describe('anomaly detection', () => {
  it('reports the known outliers against a 30-day baseline, with mean, deviation and z shown', () => {
    const ada = randomUUID();
    // Baseline alternates 4 and 6 events a day (mean 5, stddev 1); 9 on the 10th is z=4, 1 on the 12th is z=-4.
    const steady = series(ada, (o) => (o === -4 ? 9 : o === -2 ? 1 : o === 0 ? 0 : o % 2 ? 4 : 6));
    const failures = series(randomUUID(), (o) => (o === -1 ? 7 : 0), { action: 'job.failed' });
    const report = findAnomalies([...steady, ...failures], NOW);
    expect(report).toMatchObject({ window_from: '2025-03-08', window_to: '2025-03-14', baseline_days: 30 });
    const brief = report.anomalies.map((a) => [
      a.metric,
      a.actor_id,
      a.day,
      a.observed,
      a.baseline_mean,
      a.baseline_stddev,
      a.z_score,
      a.direction,
      a.severity,
    ]);
    expect(brief).toEqual(
      expect.arrayContaining([
        ['events', ada, '2025-03-10', 9, 5, 1, 4, 'above', 'high'],
        ['events', ada, '2025-03-12', 1, 5, 1, -4, 'below', 'high'],
        ['jobs_failed', null, '2025-03-13', 7, 0, 0, 7, 'above', 'high'],
      ]),
    );
    // Today (0 events so far) is not over: never reported below its baseline.
    expect(report.anomalies.some((a) => a.day === '2025-03-14')).toBe(false);
    // Ordinary days of the window (4 or 6) are not findings.
    expect(
      report.anomalies
        .filter((a) => a.actor_id === ada)
        .map((a) => a.day)
        .sort(),
    ).toEqual(['2025-03-10', '2025-03-12']);
    expect(Math.abs(report.anomalies[0].z_score)).toBeGreaterThanOrEqual(Math.abs(report.anomalies.at(-1)!.z_score));
    expect(report.anomalies.find((a) => a.metric === 'jobs_failed')!.message).toBe(
      '7 failed jobs on 2025-03-13 against a usual 0 (±0)',
    );
  });

  it('grades severity at |z| 2, 3 and 4, and floors the deviation at one event', () => {
    const actor = randomUUID();
    const grade = (observed: number) =>
      findAnomalies(
        series(actor, (o) => (o === -3 ? observed : o % 2 ? 8 : 12)),
        NOW,
      ) // mean 10, sd 2
        .anomalies.find((a) => a.actor_id === null && a.day === '2025-03-11')?.severity ?? null;
    expect([grade(13), grade(14), grade(16), grade(18), grade(6)]).toEqual([null, 'low', 'medium', 'high', 'low']);
    const flat = findAnomalies(
      series(actor, (o) => (o === -3 ? 2 : 1)),
      NOW,
    ).anomalies; // sd 0: floored to 1, z = 1
    expect(flat).toEqual([]);
  });

  it("answers GET /anomalies from the client's recorded events", async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Anomalies');
    const other = await createClient(ctx.api, ctx.admin, 'Other Anomalies');
    const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`).getTime();
    const busy = userActor(randomUUID(), 'busy@acme.test');
    const times: Date[] = [];
    for (let d = 36; d >= 7; d--) times.push(new Date(today - d * DAY + 3600_000)); // one a day in the baseline
    for (let i = 0; i < 12; i++) times.push(new Date(today - 2 * DAY + 3600_000 + i * 60_000)); // 12 two days ago
    await seedEvents(acme.client_id, busy, times);
    const res = await ctx.api.call('GET', '/api/v1/anomalies', { token: acme.triple });
    expect(res.status).toBe(200);
    const day = new Date(today - 2 * DAY).toISOString().slice(0, 10);
    expect(res.body.anomalies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          metric: 'events',
          actor_id: busy.id,
          day,
          observed: 12,
          direction: 'above',
          severity: 'high',
        }),
        expect.objectContaining({ metric: 'events', actor_id: null, day, observed: 12 }),
      ]),
    );
    expect((await ctx.api.call('GET', '/api/v1/anomalies', { token: other.triple })).body.anomalies).toEqual([]);
  });
});
