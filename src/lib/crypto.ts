import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors';

/** SHA-256 for high-entropy tokens we only verify (API secrets, sessions, access tokens). */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time equality of two strings, whatever their lengths. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export function randomToken(prefix = '', bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

/**
 * Passwords: scrypt with a per-password salt at OWASP's current parameters (N=2^17, r=8, p=1: 128 MiB and
 * about a third of a second each). The parameters are stored with the hash, so older hashes still verify
 * and `needsRehash` tells the login to store a new one.
 */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1, keylen: 64 };
const SCRYPT_MAXMEM = 256 * 1024 * 1024;

/**
 * scrypt runs on libuv's thread pool (4 threads), which file reads, DNS lookups and zlib share. At most two
 * hashes run at once, so a burst of logins always leaves threads for everything else; a few dozen more
 * wait their turn, and past that a login is refused as busy (503) instead of queueing without bound.
 */
const HASH_SLOTS = 2;
const HASH_QUEUE = 64;
let hashesRunning = 0;
let peakHashesRunning = 0;
const waiting: (() => void)[] = [];

async function inHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (hashesRunning >= HASH_SLOTS) {
    if (waiting.length >= HASH_QUEUE)
      throw new AppError(503, 'Too many sign-ins at once; try again in a moment', {}, { 'Retry-After': '1' });
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  hashesRunning++;
  peakHashesRunning = Math.max(peakHashesRunning, hashesRunning);
  try {
    return await work();
  } finally {
    hashesRunning--;
    waiting.shift()?.();
  }
}

/** The most password hashes that ran at once since the last call (for tests of the bound). */
export function takePeakPasswordHashes(): number {
  const peak = peakHashesRunning;
  peakHashesRunning = hashesRunning;
  return peak;
}

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return inHashSlot(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password, salt, keylen, { N, r, p, maxmem: SCRYPT_MAXMEM }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keylen);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algo, N, r, p, salt, key] = stored.split('$');
  if (algo !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(
    password,
    Buffer.from(salt, 'base64'),
    Number(N),
    Number(r),
    Number(p),
    expected.length,
  );
  return timingSafeEqual(actual, expected);
}

/** A hash made with other parameters than today's: the next successful login stores a new one. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith(`scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$`);
}

/** A 32-byte key given as 64 hex digits or base64. */
export function parseKey(key: string): Buffer {
  const bytes = /^[0-9a-f]{64}$/i.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64');
  if (bytes.length !== 32) throw new Error('CREDENTIALS_KEY must be 32 bytes');
  return bytes;
}

function seal(key: Buffer, plaintext: string): string[] {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')];
}

function open(key: Buffer, iv: string, tag: string, body: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

/** AES-256-GCM for secrets the service must use again later (a client's credentials for scheduled work). */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: string) {
    this.key = parseKey(key);
  }

  encrypt(plaintext: string): string {
    return ['v1', ...seal(this.key, plaintext)].join(':');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== 'v1' || !iv || !tag || !body) throw new Error('unrecognised ciphertext');
    return open(this.key, iv, tag, body);
  }
}

/** A key's public id: the first 12 hex digits of SHA-256 over a label and the key (reveals nothing of it). */
export function keyIdOf(key: string): string {
  return createHash('sha256').update('credentials-key-id:v1:').update(parseKey(key)).digest('hex').slice(0, 12);
}

/**
 * SecretBox with key ids, so the encryption key can be rotated: a value is sealed under the current
 * key and names its id (`v2:<key id>:...`); it opens with whichever configured key has that id, so
 * values sealed under a previous key (CREDENTIALS_KEY_PREVIOUS) keep opening after a rotation, and are
 * sealed again under the current key on their next write.
 */
export class KeyRing {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(current: string, previous: string[] = []) {
    this.currentKeyId = keyIdOf(current);
    this.keys.set(this.currentKeyId, parseKey(current));
    for (const key of previous) if (!this.keys.has(keyIdOf(key))) this.keys.set(keyIdOf(key), parseKey(key));
  }

  encrypt(plaintext: string): string {
    return ['v2', this.currentKeyId, ...seal(this.keys.get(this.currentKeyId)!, plaintext)].join(':');
  }

  /** Throws when no configured key has the value's id, or the value does not authenticate under it. */
  decrypt(sealed: string): string {
    const [version, keyId, iv, tag, body] = sealed.split(':');
    if (version !== 'v2' || !keyId || !iv || !tag || !body) throw new Error('unrecognised ciphertext');
    const key = this.keys.get(keyId);
    if (!key) throw new Error('sealed under a key that is not configured');
    return open(key, iv, tag, body);
  }

  /** The id of the key a sealed value was made with. */
  static keyIdOf(sealed: string): string | null {
    const [version, keyId] = sealed.split(':');
    return version === 'v2' && keyId ? keyId : null;
  }
}
