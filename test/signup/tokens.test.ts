import { createHmac, randomBytes } from 'node:crypto';
import { createSignupTokens, signingKeys, type SigningKey } from '../../src/pins/signup/tokens';

const key = (kid: string): SigningKey => ({ kid, secret: randomBytes(32) });
const claims = {
  reservation_id: '0b6f5f7e-4a53-4c52-9d0e-6f1f3b0f1a11',
  pin_id: 'NL:BAKKERIJ',
  expires_at: new Date(Date.now() + 3_600_000),
};
const statusOf = (f: () => unknown) => {
  try {
    f();
    return 200;
  } catch (err) {
    return (err as { status?: number }).status;
  }
};

describe('signup tokens', () => {
  const k1 = key('k1');
  const tokens = createSignupTokens([k1]);

  it('carry the reservation, its pin and expiry, in the current format with a key id', () => {
    const token = tokens.issue(claims);
    expect(token).toMatch(/^sgt2\.k1\.[\w-]+\.[\w-]{43}$/);
    const back = tokens.verify(token);
    expect(back.reservation_id).toBe(claims.reservation_id);
    expect(back.pin_id).toBe('NL:BAKKERIJ');
    expect(Math.abs(back.expires_at.getTime() - claims.expires_at.getTime())).toBeLessThan(1000);
  });

  it('malformed, badly signed, tampered, unknown key or expired: 401', () => {
    const token = tokens.issue(claims);
    const [v, kid, payload, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ rid: 'x', pin: 'NL:OTHER', exp: 9_999_999_999 })).toString('base64url');
    const cases = {
      empty: '',
      garbage: 'not-a-token',
      tooFewParts: `${v}.${kid}.${payload}`,
      tamperedPayload: `${v}.${kid}.${forged}.${sig}`,
      flippedSignature: `${v}.${kid}.${payload}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`,
      unknownKid: `${v}.k9.${payload}.${sig}`,
      otherKey: createSignupTokens([{ kid: 'k1', secret: randomBytes(32) }]).issue(claims),
      expired: tokens.issue({ ...claims, expires_at: new Date(Date.now() - 1000) }),
      unknownVersion: `sgt3.${kid}.${payload}.${sig}`,
    };
    for (const [name, t] of Object.entries(cases))
      expect({ name, status: statusOf(() => tokens.verify(t)) }).toEqual({ name, status: 401 });
  });

  it('a token of the previous format (no key id) is 410 when genuinely signed, 401 when not', () => {
    const payload = Buffer.from(JSON.stringify({ rid: claims.reservation_id, exp: 9_999_999_999 })).toString(
      'base64url',
    );
    const old = (secret: Buffer) =>
      `sgt1.${payload}.${createHmac('sha256', secret).update(`sgt1.${payload}`).digest('base64url')}`;
    expect(statusOf(() => tokens.verify(old(k1.secret)))).toBe(410);
    expect(statusOf(() => tokens.verify(old(randomBytes(32))))).toBe(401);
  });

  it('rotation: the first key signs, the older one still verifies until it is dropped', () => {
    const before = tokens.issue(claims);
    const k2 = key('k2');
    const rotated = createSignupTokens([k2, k1]);
    expect(rotated.issue(claims)).toMatch(/^sgt2\.k2\./);
    expect(rotated.verify(before).pin_id).toBe('NL:BAKKERIJ');
    expect(statusOf(() => createSignupTokens([k2]).verify(before))).toBe(401);
  });

  it('keys come from SIGNUP_TOKEN_KEYS, else are derived from the credentials key', () => {
    const hex = randomBytes(32).toString('hex');
    const b64 = randomBytes(32).toString('base64');
    const configured = signingKeys(`new:${hex}, old:${b64}`, randomBytes(32).toString('hex'));
    expect(configured.map((k) => [k.kid, k.secret.length])).toEqual([
      ['new', 32],
      ['old', 32],
    ]);
    const credentialsKey = randomBytes(32).toString('hex');
    const derived = signingKeys(undefined, credentialsKey);
    expect(derived[0].secret.equals(signingKeys(undefined, credentialsKey)[0].secret)).toBe(true);
    expect(derived[0].secret.toString('hex')).not.toBe(credentialsKey);
  });
});
