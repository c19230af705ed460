import type { Request, Response } from 'express';
import { notModified } from '../../src/lib/http/conditional-get';

/** A GET with these request headers, answered with these validators. */
function exchange(request: Record<string, string>, validators: Record<string, string>) {
  const lower = (h: Record<string, string>) => new Map(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  const req = lower(request);
  const res = lower(validators);
  return [
    { get: (name: string) => req.get(name.toLowerCase()) },
    { get: (name: string) => res.get(name.toLowerCase()) },
  ] as [Request, Response];
}

const STRONG = '"abc"';
const WEAK = 'W/"abc"';
const LAST_MODIFIED = 'Wed, 25 Nov 2026 12:00:00 GMT';

describe('conditional GET (notModified)', () => {
  it('lets If-None-Match decide when present, compared weakly, any tag of a list, * for any', () => {
    for (const [given, etag] of [
      [STRONG, STRONG],
      [WEAK, STRONG],
      [STRONG, WEAK],
      [`"x", ${WEAK}`, WEAK],
      ['*', STRONG],
    ])
      expect({ given, etag, fresh: notModified(...exchange({ 'If-None-Match': given }, { ETag: etag })) }).toEqual({
        given,
        etag,
        fresh: true,
      });
    expect(notModified(...exchange({ 'If-None-Match': '"abd"' }, { ETag: STRONG }))).toBe(false);
    // A current If-Modified-Since does not override an If-None-Match that does not match.
    const both = { 'If-None-Match': '"other"', 'If-Modified-Since': LAST_MODIFIED };
    expect(notModified(...exchange(both, { ETag: STRONG, 'Last-Modified': LAST_MODIFIED }))).toBe(false);
  });

  it('falls back to If-Modified-Since at one-second precision; without validators the answer is sent', () => {
    const validators = { ETag: STRONG, 'Last-Modified': LAST_MODIFIED };
    expect(notModified(...exchange({ 'If-Modified-Since': LAST_MODIFIED }, validators))).toBe(true);
    expect(notModified(...exchange({ 'If-Modified-Since': 'Wed, 25 Nov 2026 11:59:59 GMT' }, validators))).toBe(false);
    expect(notModified(...exchange({ 'If-Modified-Since': 'not a date' }, validators))).toBe(false);
    expect(notModified(...exchange({ 'If-Modified-Since': LAST_MODIFIED }, { ETag: STRONG }))).toBe(false);
    expect(notModified(...exchange({}, validators))).toBe(false);
  });

  it('answers 304 to a conditional request that also says Cache-Control: no-cache (fetch() always adds it)', () => {
    const request = { 'If-None-Match': WEAK, 'Cache-Control': 'no-cache', Pragma: 'no-cache' };
    expect(notModified(...exchange(request, { ETag: WEAK }))).toBe(true);
  });
});
