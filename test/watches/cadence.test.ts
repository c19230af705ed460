import { checkCadence } from '../../src/watches/cadence';

/** The cadence check alone (cron-parser reads each field; the service combines them as Temporal does). */
describe('checkCadence', () => {
  const cron = (expression: string) => checkCadence({ cron: expression }, 3600);
  const refusal = (expression: string) => {
    try {
      cron(expression);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error(`${expression} was accepted`);
  };

  it('accepts five fields with names, ranges, steps and lists, and the shorthands', () => {
    for (const expression of ['0 7 * * MON-FRI', '0 7 * JAN-MAR sun', '0 */2 * * *', '5 1 * * 7', '@daily']) {
      expect(cron(expression)).toEqual({ cron: expression, time_zone: 'UTC' });
    }
  });

  it('reads the day of month and the day of week both required (Temporal), so a Monday the 29th of February runs', () => {
    expect(cron('0 7 29 2 1')).toEqual({ cron: '0 7 29 2 1', time_zone: 'UTC' });
    expect(refusal('0 7 30 2 *')).toMatch(/never runs/);
    expect(refusal('0 7 31 4,6,9,11 *')).toMatch(/never runs/);
  });

  it('names the field and what is wrong', () => {
    expect(refusal('61 7 * * *')).toMatch(/^Invalid cron expression: minute "61": .*0-59/);
    expect(refusal('0 24 * * *')).toMatch(/hour "24": .*0-23/);
    expect(refusal('0 7 0 * *')).toMatch(/day of month "0": .*1-31/);
    expect(refusal('0 7 * 13 *')).toMatch(/month "13": .*1-12/);
    expect(refusal('0 7 * * 8')).toMatch(/day of week "8": .*0-7/);
    expect(refusal('0/0 * * * *')).toMatch(/minute "0\/0"/);
    expect(refusal('0 7 * *')).toMatch(/it has 4 fields; five are needed/);
    expect(refusal('0 0 1 1 * 2030')).toMatch(/it has 6 fields/);
  });

  it('refuses what cron-parser reads but Temporal does not: L, W, #, ? and H', () => {
    for (const [expression, field] of [
      ['0 7 L * *', 'day of month "L"'],
      ['0 7 1W * *', 'day of month "1W"'],
      ['0 7 * * 5#2', 'day of week "5#2"'],
      ['0 7 ? * *', 'day of month "?"'],
      ['H 7 * * *', 'minute "H"'],
    ]) {
      expect(refusal(expression)).toContain(`${field} is not a value, range or step Temporal reads`);
    }
  });

  it('measures the shortest gap between runs, also across midnight and between days', () => {
    expect(refusal('*/15 * * * *')).toMatch(/every 900 seconds/);
    expect(refusal('0,59 0,23 * * *')).toMatch(/every 60 seconds/);
    expect(cron('0 0,12 * * *').cron).toBe('0 0,12 * * *');
    expect(checkCadence({ cron: '0 7 * * *' }, 86_400)).toEqual({ cron: '0 7 * * *', time_zone: 'UTC' });
    expect(() => checkCadence({ cron: '0 7,8 * * *' }, 86_400)).toThrow(/every 3600 seconds/);
  });
});
