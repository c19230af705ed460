import { randomUUID } from 'node:crypto';
import { createClient, useTestApi } from '../support/harness';
import { shiftsCsv } from '../../src/activity/csv';
import { neutraliseFormula } from '../../src/lib/csv';
import { seedEvents, userActor } from './activity-helpers';

const ctx = useTestApi();
/** A shift's start and end cells on 2025-03-14, from hh:mm times. */
const at = (start: string, end: string) => [start, end].map((t) => `2025-03-14T${t}:00.000Z`);

describe('shift CSV export', () => {
  it('quotes cells per RFC 4180 (CRLF between records) and neutralises formulas, one row per shift', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Csv');
    const formula = userActor(randomUUID(), '=HYPERLINK("http://evil.test","x")');
    const comma = userActor(randomUUID(), 'Lovelace, "Ada"\nsecond line');
    const plus = userActor(randomUUID(), '+1-555');
    await seedEvents(acme.client_id, formula, ['2025-03-14T08:00:00Z', '2025-03-14T08:10:00Z']);
    await seedEvents(acme.client_id, comma, ['2025-03-14T09:00:00Z']);
    await seedEvents(acme.client_id, plus, ['2025-03-14T10:00:00Z']);

    const res = await ctx.api.call('GET', '/api/v1/export.csv?date=2025-03-14', { token: acme.triple });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="shifts-2025-03-14-2025-03-14.csv"');
    expect(res.body).toBe(
      [
        'actor_id,actor_kind,actor_name,role,started_at,ended_at,duration_minutes,event_count,shipped_count',
        [
          formula.id,
          'user',
          `"'=HYPERLINK(""http://evil.test"",""x"")"`,
          'client_user',
          ...at('08:00', '08:10'),
          10,
          2,
          0,
        ].join(','),
        [comma.id, 'user', '"Lovelace, ""Ada""\nsecond line"', 'client_user', ...at('09:00', '09:00'), 0, 1, 0].join(
          ',',
        ),
        `${plus.id},user,'+1-555,client_user,2025-03-14T10:00:00.000Z,2025-03-14T10:00:00.000Z,0,1,0`,
        '',
      ].join('\r\n'),
    );
  });

  it('neutralises every formula lead character and leaves other cells and numbers alone', () => {
    for (const lead of ['=', '+', '-', '@', '\t', '\r'])
      expect(neutraliseFormula(`${lead}SUM(A1)`)).toBe(`'${lead}SUM(A1)`);
    expect(neutraliseFormula('ada@example.org')).toBe('ada@example.org');
    expect(neutraliseFormula(-3)).toBe(-3);
    expect(shiftsCsv([])).toBe(
      'actor_id,actor_kind,actor_name,role,started_at,ended_at,duration_minutes,event_count,shipped_count\r\n',
    );
  });

  it('validates the window like the list', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Csv Window');
    expect(
      (await ctx.api.call('GET', '/api/v1/export.csv?from=2025-01-01&to=2025-02-01', { token: acme.triple })).status,
    ).toBe(422);
    expect((await ctx.api.call('GET', '/api/v1/export.csv?date=2025-01-01', { token: ctx.admin })).status).toBe(422);
  });
});
