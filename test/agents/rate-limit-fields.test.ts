import { rateLimitFields } from '../../src/agents/request-limits';

/**
 * The RateLimit fields as bytes on the wire, written out by hand from draft-ietf-httpapi-ratelimit-headers and
 * RFC 9651 (Lists of String Items with Integer parameters), so the serializer is not checked only by its own parser.
 */
describe('rateLimitFields', () => {
  it('writes each quota as a String Item with its Integer parameters, in order', () => {
    expect(
      rateLimitFields([
        { policy: 'rpm', max: 60, seconds: 60, remaining: 12, resetSeconds: 31 },
        { policy: 'rpd', max: 1000, seconds: 86_400, remaining: 0, resetSeconds: 3600 },
      ]),
    ).toEqual({
      'RateLimit-Policy': '"rpm";q=60;w=60, "rpd";q=1000;w=86400',
      RateLimit: '"rpm";r=12;t=31, "rpd";r=0;t=3600',
    });
  });

  it('leaves out w and t for a quota without a window', () => {
    expect(rateLimitFields([{ policy: 'jobs', max: 10, remaining: 4 }])).toEqual({
      'RateLimit-Policy': '"jobs";q=10',
      RateLimit: '"jobs";r=4',
    });
  });

  it('refuses what RFC 9651 cannot carry rather than write a field a parser would reject', () => {
    expect(() => rateLimitFields([{ policy: 'r\u00e9', max: 1, remaining: 1 }])).toThrow();
    expect(() => rateLimitFields([{ policy: 'rpm', max: 1e16, remaining: 1 }])).toThrow();
  });
});
