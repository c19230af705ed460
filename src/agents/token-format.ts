import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const ACCESS_TOKEN_PREFIX = 'lpat_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 36; // ~214 bits
const CHECK_CHARS = 6; // CRC32 fits in 6 base62 digits
const SHAPE = new RegExp(`^${ACCESS_TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECK_CHARS}}$`);

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++, n = Math.floor(n / 62)) out = BASE62[n % 62] + out;
  return out;
}

const checksum = (body: string) => base62(crc32(ACCESS_TOKEN_PREFIX + body), CHECK_CHARS);

/**
 * An agent access token: `lpat_`, 36 random base62 characters and a CRC32 checksum of what precedes
 * it, like GitHub's tokens. Secret scanners recognise the shape; the service rejects a mistyped or
 * truncated token without a database lookup.
 */
export function newAccessToken(): string {
  let body = '';
  for (let i = 0; i < RANDOM_CHARS; i++) body += BASE62[randomInt(62)];
  return ACCESS_TOKEN_PREFIX + body + checksum(body);
}

export function isWellFormedAccessToken(token: string): boolean {
  if (!SHAPE.test(token)) return false;
  const body = token.slice(ACCESS_TOKEN_PREFIX.length, -CHECK_CHARS);
  return token.slice(-CHECK_CHARS) === checksum(body);
}

/** The first characters, shown in lists so a person can tell tokens apart. */
export const tokenPrefix = (token: string) => token.slice(0, ACCESS_TOKEN_PREFIX.length + 4);
