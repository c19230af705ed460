import { randomUUID } from 'node:crypto';
import { SERVICE_NAMESPACE, derivedUuid, stableUuid, uuidV5 } from '../../src/lib/ids';

const NAMESPACE_DNS = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('derived ids', () => {
  it("uuidV5 gives RFC 9562's test vector (Appendix A.4: the DNS namespace, www.example.com)", () => {
    expect(uuidV5('www.example.com', NAMESPACE_DNS)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(uuidV5('www.example.com', NAMESPACE_DNS.toUpperCase())).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(/not a UUID/);
  });

  it('derivedUuid is version 5 in the service namespace: the same parts the same id, other parts another', () => {
    const id = derivedUuid('message', 'signup-link-1');
    expect(id).toMatch(V5);
    expect(id).toBe(uuidV5('message\u0000signup-link-1', SERVICE_NAMESPACE));
    expect(derivedUuid('message', 'signup-link-1')).toBe(id);
    expect(derivedUuid('message', 'signup-link-2')).not.toBe(id);
    expect(derivedUuid('message\u0000signup-link-1')).toBe(id); // the parts are joined by NUL, as stableUuid joins them
    const many = new Set(Array.from({ length: 1000 }, () => derivedUuid(randomUUID())));
    expect(many.size).toBe(1000);
  });

  it('stableUuid still derives the ids stored under it (a changed derivation would orphan them)', () => {
    // Fixed values: the lead index's resource ids, media and watch-run job ids are found again by deriving them.
    expect(stableUuid('client-1', 'phones', '+31301234567')).toBe('fc7145cf-a659-5e01-892c-ad249a7015a5');
    expect(stableUuid('watch-run', 'run-1')).toMatch(V5);
  });
});
