import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { NextFunction, Request, Response } from 'express';
import { parseItem } from 'structured-headers';
import { sha256, type KeyRing } from '../crypto';
import { clientAddress } from './client-address';
import { AppError } from '../errors';
import { keepRenewed } from '../lease';
import type { Logger } from '../logger';
import { idempotencyAnswersDropped } from '../metrics';
import type { RoutedOperation } from './contract';
import type { OperationStage } from './operations';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** The request headers that make two requests of one operation different requests (beside path, query and body). */
const FINGERPRINTED_HEADERS = ['x-brand-id', 'x-selected-client-id', 'x-country-code'];
/** The answer's headers a replay repeats; the rest (RateLimit, request ids, dates) are the retry's own. */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'last-modified'];
/** A larger answer is not kept (its retry does the work again). */
export const MAX_KEPT_BYTES = 1 << 20;
/** A key's length, in either form. */
const MAX_KEY_LENGTH = 255;
/**
 * A key sent bare, as most clients send it (Stripe's, and agents' HTTP tools): visible ASCII without the
 * characters a structured field reads as separators or quoting (`"` `,` `;` `\`). The contract's pattern
 * (components.parameters.IdempotencyKey) is this or the quoted String.
 */
const BARE_KEY = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]{1,255}$/;

/**
 * The key an Idempotency-Key field carries, or null when it is neither form: the draft's RFC 8941 String
 * (`"8e03978e-…"`, without parameters) or a bare token (`8e03978e-…`). A bare value and the same value quoted are
 * the same key.
 */
export function idempotencyKeyOf(field: string): string | null {
  if (BARE_KEY.test(field)) return field;
  try {
    const [value, params] = parseItem(field);
    return typeof value === 'string' && params.size === 0 && value.length >= 1 && value.length <= MAX_KEY_LENGTH
      ? value
      : null;
  } catch {
    return null;
  }
}

/** What a request with a key carries for its handler: the key's id within its caller's scope. */
export interface IdempotencyClaim {
  /** SHA-256 over the caller's scope, the operation and the key: what the key is stored under, and what ids
   * derive from. */
  id: string;
}

interface Pending {
  state: 'pending';
  fingerprint: string;
  owner: string;
}
interface Done {
  state: 'done';
  fingerprint: string;
  /** The answer ({status, headers, body in base64}), sealed: some answers carry secrets (a poll token, a key). */
  answer: string;
}
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Stores `ARGV[1]` for `ARGV[2]` ms unless the key holds something: returns what it holds, or false. */
const CLAIM = `
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;
/** Only while the key still holds this request's claim (`ARGV[1]`): replaces it (`ARGV[2]` for `ARGV[3]` ms), or
 * with no replacement gives the key up; with ARGV[2] = '=' extends the claim by `ARGV[3]` ms. */
const SETTLE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then return redis.call('DEL', KEYS[1]) end
if ARGV[2] == '=' then return redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/**
 * Keeps an answer under a per-caller cap. Only while the key still holds this request's claim (`ARGV[1]`): stores
 * the answer `ARGV[2]` for `ARGV[3]` ms, lists it in its caller's index (KEYS[2], a sorted set of the caller's kept
 * keys by when they were kept, in microseconds of Redis's clock; KEYS[3], a hash of their sizes and, under `#`,
 * their total), then drops the caller's oldest answers while it holds more than `ARGV[4]` answers or `ARGV[5]`
 * bytes. An index entry older than the answers' lifetime names an answer already expired (whose key may hold a new
 * claim since): it leaves the index without its key being touched. Both index keys live as long as the caller's
 * newest answer. Answers how many kept answers were dropped, or -1 when the claim was gone. (The index's members
 * are the keys as Redis names them, prefix included: keys a script reaches that are not in KEYS, so one Redis,
 * never a cluster.)
 */
const KEEP = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local expired = now - tonumber(ARGV[3]) * 1000
local previous = redis.call('HGET', KEYS[3], KEYS[1])
if previous then redis.call('HINCRBY', KEYS[3], '#', -tonumber(previous)) end
redis.call('ZADD', KEYS[2], now, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], #ARGV[2])
local total = redis.call('HINCRBY', KEYS[3], '#', #ARGV[2])
local dropped = 0
while redis.call('ZCARD', KEYS[2]) > tonumber(ARGV[4]) or total > tonumber(ARGV[5]) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  total = redis.call('HINCRBY', KEYS[3], '#', -tonumber(redis.call('HGET', KEYS[3], oldest[1]) or 0))
  redis.call('HDEL', KEYS[3], oldest[1])
  if tonumber(oldest[2]) > expired then
    redis.call('DEL', oldest[1])
    dropped = dropped + 1
  end
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return dropped`;

/** JSON with object keys sorted, so a retry that orders its fields differently is the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Where a public operation's request carries the token of the resource it acts on (`x-idempotency-scope`). */
interface TokenPlace {
  in: 'body' | 'query';
  name: string;
}

/** An operation's `x-idempotency-scope` (`body.token`, `query.approval_token`), or null when it names none. */
function tokenPlaceOf(op: RoutedOperation): TokenPlace | null {
  const declared = op.schema['x-idempotency-scope'];
  if (declared === undefined) return null;
  const match = typeof declared === 'string' ? /^(body|query)\.(\w+)$/.exec(declared) : null;
  if (!match) throw new Error(`${op.schema.operationId}: x-idempotency-scope must be body.<name> or query.<name>`);
  return { in: match[1] as TokenPlace['in'], name: match[2] };
}

/**
 * Who a key belongs to. On an operation whose contract names the token of the resource it acts on (a signup
 * token, an approval token): that token, by its hash only, so people behind one address (a NAT, an office) never
 * share keys, and one of them cannot be answered another's request. Else the credential that sent it (never its
 * secret; see Caller.credentialId), or for a public operation without a token (an access request, which makes
 * one) the client's address. Another scope's identical key is another key.
 */
function scopeOf(req: Request, tokenAt: TokenPlace | null): string {
  if (tokenAt) {
    const source = (tokenAt.in === 'body' ? req.body : req.query) as Record<string, unknown> | undefined;
    const token = source?.[tokenAt.name];
    // The contract requires it; a request without it never reaches this stage.
    if (typeof token === 'string' && token) return `token:${sha256(token)}`;
  }
  const caller = req.caller;
  if (caller) return caller.credentialId ?? `${caller.kind}:${caller.userId ?? caller.clientId}`;
  return `address:${clientAddress(req)}`;
}

function fingerprintOf(req: Request, operationId: string): string {
  const headers = Object.fromEntries(FINGERPRINTED_HEADERS.map((h) => [h, req.get(h) ?? null]));
  return sha256(canonicalJson({ operationId, url: req.originalUrl, headers, body: req.body ?? null }));
}

/** An id (a UUID's form) derived from a request's key and `parts`: the same retry derives the same id. */
export function idempotentId(claim: IdempotencyClaim, ...parts: string[]): string {
  const h = sha256([claim.id, ...parts].join('\n'));
  // RFC 9562 version 8 (custom), variant 10: a valid UUID whose bits are the hash's.
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

type Parameter = { $ref?: string; name?: string; in?: string };

/** A parameter, or the one its local `$ref` (`#/components/parameters/...`) names. */
function resolveRef(document: object, p: Parameter): Parameter {
  if (!p.$ref?.startsWith('#/')) return p;
  const path = p.$ref.slice(2).split('/');
  return path.reduce<Record<string, unknown> | undefined>(
    (at, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')] as Record<string, unknown> | undefined,
    document as Record<string, unknown>,
  ) as Parameter;
}

export interface IdempotencyDeps {
  /** The contract, whose operations declare the header (their parameters may be `$ref`s into it). */
  document: object;
  redis: Redis;
  ring: KeyRing;
  logger: Logger;
  ttlSeconds: number;
  leaseSeconds: number;
  /** Answers one caller (a scope: scopeOf) may have kept at once, and their bytes (sealed, as stored). */
  maxAnswersPerCaller: number;
  maxBytesPerCaller: number;
}

/**
 * Safe retries (draft-ietf-httpapi-idempotency-key-header), one stage of the operation pipeline for every operation
 * whose contract declares the Idempotency-Key header, after validation and before its handler. The key (an RFC
 * 8941 String, or the same value bare: idempotencyKeyOf) is scoped to the caller and the operation and claimed in Redis while the request runs (a lease
 * renewed as long as the process lives): a retry meanwhile answers 409 `idempotency_key_in_flight`; one with a
 * different request (URL, body, acting headers) 422 `idempotency_key_reused`; one after the answer gets that
 * answer again, without the handler. The answer is kept `ttlSeconds`, sealed; not kept are answers that invite a retry
 * (5xx, or any with Retry-After, such as 429 and 402) and answers over MAX_KEPT_BYTES, so their retry does the work.
 * Each caller keeps at most `maxAnswersPerCaller` answers and `maxBytesPerCaller` bytes at once (KEEP): past
 * either, its own oldest answers stop being kept, so that no caller can fill Redis and take the guarantee from
 * the others; the newest are kept, since retries come soon after their request. An answer larger than the bytes
 * alone is not kept, and takes none of the caller's others.
 */
export function idempotencyStages(deps: IdempotencyDeps) {
  const { redis, ring, logger } = deps;
  const ttlMs = deps.ttlSeconds * 1000;
  const leaseMs = deps.leaseSeconds * 1000;
  const settle = (key: string, claim: string, next: string, ms: number) =>
    redis.eval(SETTLE, 1, key, claim, next, String(ms)) as Promise<number>;
  /** Keeps `answer` under the caller's cap; an answer larger than the cap alone gives the key up instead. */
  const keep = async (key: string, scope: string, claim: string, answer: string) => {
    if (answer.length > deps.maxBytesPerCaller) {
      idempotencyAnswersDropped.labels('too_large').inc();
      return settle(key, claim, '', ttlMs);
    }
    const caller = sha256(scope);
    const dropped = (await redis.eval(
      KEEP,
      3,
      key,
      `idempotency-kept:${caller}`,
      `idempotency-kept-bytes:${caller}`,
      claim,
      answer,
      String(ttlMs),
      String(deps.maxAnswersPerCaller),
      String(deps.maxBytesPerCaller),
    )) as number;
    if (dropped > 0) idempotencyAnswersDropped.labels('caller_cap').inc(dropped);
  };

  function replay(res: Response, done: Done) {
    const answer = JSON.parse(ring.decrypt(done.answer)) as Answer;
    res.status(answer.status);
    res.set(answer.headers);
    res.end(Buffer.from(answer.body, 'base64'));
  }

  /**
   * Lets the handler answer, and keeps its answer (or gives the key up) before the answer is sent, so a retry
   * that comes after it finds it.
   */
  function keepAnswer(res: Response, key: string, scope: string, claim: string, fingerprint: string) {
    const stopRenewing = keepRenewed(() => settle(key, claim, '=', leaseMs), leaseMs);
    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const buf = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      size += buf.length;
      if (size <= MAX_KEPT_BYTES) chunks.push(buf);
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.write = ((...args: unknown[]) => {
      collect(args[0], args[1]);
      return write(...args);
    }) as Response['write'];
    res.end = ((...args: unknown[]) => {
      stopRenewing();
      collect(args[0], args[1]);
      const status = res.statusCode;
      const kept = status < 500 && !res.getHeader('retry-after') && size <= MAX_KEPT_BYTES;
      let settled: Promise<unknown>;
      if (kept) {
        const headers = Object.fromEntries(
          REPLAYED_HEADERS.flatMap((h) => (res.getHeader(h) === undefined ? [] : [[h, String(res.getHeader(h))]])),
        );
        const answer: Answer = { status, headers, body: Buffer.concat(chunks).toString('base64') };
        const done: Done = { state: 'done', fingerprint, answer: ring.encrypt(JSON.stringify(answer)) };
        settled = keep(key, scope, claim, JSON.stringify(done));
      } else settled = settle(key, claim, '', ttlMs);
      settled
        .catch((err) => logger.warn({ err: (err as Error).message }, 'idempotency: answer not kept'))
        .finally(() => end(...args));
      return res;
    }) as Response['end'];
  }

  /** The stage of one operation, or none when its contract does not declare the header. */
  return (op: RoutedOperation): OperationStage[] => {
    const declared = ((op.schema.parameters ?? []) as Parameter[])
      .map((p) => resolveRef(deps.document, p))
      .some((p) => p.in === 'header' && p.name?.toLowerCase() === IDEMPOTENCY_HEADER.toLowerCase());
    if (!declared) return [];
    const operationId = op.schema.operationId;
    const tokenAt = tokenPlaceOf(op);
    return [
      async (req: Request, res: Response, next: NextFunction) => {
        const field = req.get(IDEMPOTENCY_HEADER);
        if (field === undefined) return next();
        const value = idempotencyKeyOf(field);
        if (value === null) {
          // The contract's pattern refuses it first; a value it let through that is neither form is refused too.
          throw AppError.invalid(
            'Idempotency-Key must be a structured-field String ("<uuid>") or a bare token (<uuid>), 1 to 255 characters',
            [{ location: 'header', field: IDEMPOTENCY_HEADER, message: 'neither an RFC 8941 String nor a bare token' }],
          );
        }
        // Per caller and operation: the same key sent to another operation is another request's key.
        const scope = scopeOf(req, tokenAt);
        const id = sha256(`${scope}\n${operationId}\n${value}`);
        const key = `idempotency:${id}`;
        const fingerprint = fingerprintOf(req, operationId);
        const claim = JSON.stringify({ state: 'pending', fingerprint, owner: randomBytes(12).toString('hex') });
        const held = (await redis.eval(CLAIM, 1, key, claim, String(leaseMs))) as string | null;
        if (held === null) {
          req.idempotency = { id };
          keepAnswer(res, key, scope, claim, fingerprint);
          return next();
        }
        const record = JSON.parse(held) as Pending | Done;
        if (record.fingerprint !== fingerprint) {
          throw new AppError(
            422,
            'This Idempotency-Key was used with a different request; send a new key for a new request',
            {
              code: 'idempotency_key_reused',
              errors: [{ location: 'header', field: IDEMPOTENCY_HEADER, message: 'used before with another request' }],
            },
          );
        }
        if (record.state === 'pending') {
          throw new AppError(
            409,
            'A request with this Idempotency-Key is still in flight; retry it after Retry-After',
            { code: 'idempotency_key_in_flight' },
            { 'Retry-After': '1' },
          );
        }
        replay(res, record);
      },
    ];
  };
}
