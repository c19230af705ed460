import { KeyRing, keyIdOf } from '../../src/lib/crypto';
import { lastDays, periodBounds, periodDaysSoFar, secondsUntil } from '../../src/integrations/periods';
import { checkAllowed } from '../../src/integrations/relay/relay.service';
import { maskCredentials } from '../../src/integrations/providers';

const at = new Date('2026-11-25T13:45:10Z'); // a Wednesday

describe('spend periods (UTC)', () => {
  it('daily, weekly from Monday, monthly', () => {
    expect(periodBounds('daily', at)).toEqual({
      start: new Date('2026-11-25T00:00:00Z'),
      end: new Date('2026-11-26T00:00:00Z'),
    });
    expect(periodBounds('weekly', at)).toEqual({
      start: new Date('2026-11-23T00:00:00Z'),
      end: new Date('2026-11-30T00:00:00Z'),
    });
    // Sunday
    expect(periodBounds('weekly', new Date('2026-11-29T23:59:59Z')).start).toEqual(new Date('2026-11-23T00:00:00Z'));
    expect(periodBounds('monthly', new Date('2026-12-31T23:00:00Z'))).toEqual({
      start: new Date('2026-12-01T00:00:00Z'),
      end: new Date('2027-01-01T00:00:00Z'),
    });
  });

  it('lists the days of a period so far, today first, and history oldest first', () => {
    expect(periodDaysSoFar('weekly', at)).toEqual(['2026-11-25', '2026-11-24', '2026-11-23']);
    expect(periodDaysSoFar('daily', at)).toEqual(['2026-11-25']);
    expect(periodDaysSoFar('monthly', at)).toHaveLength(25);
    expect(lastDays(3, at)).toEqual(['2026-11-23', '2026-11-24', '2026-11-25']);
  });

  it('Retry-After is whole seconds, at least 1', () => {
    expect(secondsUntil(1_000_500, 1_000_000)).toBe(1);
    expect(secondsUntil(1_000_000, 1_000_000)).toBe(1);
    expect(secondsUntil(1_060_000, 1_000_001)).toBe(60);
  });
});

describe('relay allowlist', () => {
  const allowed = (provider: 'maps' | 'parcel-tracking' | 'messaging', method: string, path: string) => {
    try {
      checkAllowed(provider, { method: method as never, path });
      return true;
    } catch {
      return false;
    }
  };
  it('matches whole paths with allowed methods only', () => {
    expect(allowed('maps', 'GET', 'geocode/json')).toBe(true);
    expect(allowed('maps', 'GET', 'geocode/json/../../x')).toBe(false);
    expect(allowed('parcel-tracking', 'GET', '/trackings/ABC-123_x')).toBe(true);
    expect(allowed('parcel-tracking', 'GET', '/trackings/ABC/..')).toBe(false);
    expect(allowed('parcel-tracking', 'GET', '/trackings/%2e%2e')).toBe(false);
    expect(allowed('parcel-tracking', 'GET', '/trackings/a\nb')).toBe(false);
    expect(allowed('parcel-tracking', 'POST', '/couriers')).toBe(false);
    expect(allowed('messaging', 'POST', '/Messages.json')).toBe(true);
    expect(allowed('messaging', 'POST', '/MessagesXjson')).toBe(false); // the dot is literal
    expect(allowed('messaging', 'GET', '/Messages/SM123.json')).toBe(true);
  });
});

describe('credential keys', () => {
  const a = 'a'.repeat(64);
  const b = 'b'.repeat(64);
  it('seals under the current key id and opens values of previous keys only when configured', () => {
    const sealed = new KeyRing(a).encrypt('secret');
    expect(KeyRing.keyIdOf(sealed)).toBe(keyIdOf(a));
    expect(new KeyRing(b, [a]).decrypt(sealed)).toBe('secret');
    expect(() => new KeyRing(b).decrypt(sealed)).toThrow('not configured');
    const parts = sealed.split(':');
    parts[4] = (parts[4][0] === 'A' ? 'B' : 'A') + parts[4].slice(1); // the ciphertext
    expect(() => new KeyRing(a).decrypt(parts.join(':'))).toThrow(/authenticate/);
  });
  it('masks all but the last 4 characters, and all of a short value', () => {
    expect(maskCredentials({ api_key: 'abcdefghijklmnop', pin: '1234' })).toEqual({
      api_key: '••••••••••••mnop',
      pin: '••••••••••••',
    });
  });
});
