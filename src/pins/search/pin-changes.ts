import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

/**
 * The pin change feed: every write of a pin appends its id to a Redis stream, which each API process's
 * in-memory search index reads from its last seen entry. The stream is bounded (MAXLEN ~), so a reader
 * that fell behind the trimming must reload; so must one whose Redis lost the stream, which the epoch
 * (a random id set when a reader loads) tells: it is gone or different after Redis lost its data.
 */
export const PIN_CHANGES_STREAM = 'pins:changes';
export const PIN_CHANGES_EPOCH = 'pins:changes:epoch';
export const PIN_CHANGES_MAXLEN = 10_000;

export interface ChangeCursor {
  epoch: string;
  lastId: string;
  added: number; // the stream's entries-added at lastId
}

/** Records that these pins changed (call it after the write is stored). */
export async function publishPinChanges(redis: Redis, pinIds: string[]): Promise<void> {
  if (pinIds.length === 0) return;
  const pipeline = redis.pipeline();
  for (const id of pinIds) pipeline.xadd(PIN_CHANGES_STREAM, 'MAXLEN', '~', PIN_CHANGES_MAXLEN, '*', 'pin', id);
  for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
}

// XINFO's fields: `last-generated-id` (where a full load starts reading) and `entries-added` (Redis 7:
// every entry ever added). Trimming leaves no other trace, so a reader counts: if more entries were added
// since its cursor than the stream still holds after it, some were trimmed away unread.
const INFO = `
local function info(key)
  if redis.call('EXISTS', key) == 0 then return '0-0', 0 end
  local fields = redis.call('XINFO', 'STREAM', key)
  local last, added = '0-0', 0
  for i = 1, #fields, 2 do
    if fields[i] == 'last-generated-id' then last = fields[i + 1] end
    if fields[i] == 'entries-added' then added = fields[i + 1] end
  end
  return last, added
end
`;

/** Before a full load: the epoch (set if missing) and the stream position the load starts from. */
const START_SCRIPT = `${INFO}
redis.call('SET', KEYS[2], ARGV[1], 'NX')
local last, added = info(KEYS[1])
return { redis.call('GET', KEYS[2]), last, added }`;

/** One round trip: the epoch, the entries ever added, and every change after the cursor. */
const READ_SCRIPT = `${INFO}
local epoch = redis.call('GET', KEYS[2]) or ''
local last, added = info(KEYS[1])
local entries = {}
if last ~= '0-0' then entries = redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+') end
return { epoch, added, entries }`;

export async function startCursor(redis: Redis): Promise<ChangeCursor> {
  const [epoch, lastId, added] = (await redis.eval(
    START_SCRIPT,
    2,
    PIN_CHANGES_STREAM,
    PIN_CHANGES_EPOCH,
    randomUUID(),
  )) as [string, string, number];
  return { epoch, lastId, added: Number(added) };
}

/**
 * The pins changed since the cursor and the cursor after them; `reload` when changes may have been lost
 * (the epoch changed, or entries after the cursor were trimmed, or the stream was recreated).
 */
export async function readPinChanges(
  redis: Redis,
  cursor: ChangeCursor,
): Promise<{ reload: true } | { reload: false; pinIds: string[]; cursor: ChangeCursor }> {
  const [epoch, addedReply, entries] = (await redis.eval(
    READ_SCRIPT,
    2,
    PIN_CHANGES_STREAM,
    PIN_CHANGES_EPOCH,
    cursor.lastId,
  )) as [string, number, Array<[string, string[]]>];
  const added = Number(addedReply);
  if (epoch !== cursor.epoch || added - cursor.added !== entries.length) return { reload: true };
  const pinIds = new Set<string>();
  for (const [, fields] of entries)
    for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'pin') pinIds.add(fields[i + 1]);
  const lastId = entries.length ? entries[entries.length - 1][0] : cursor.lastId;
  return { reload: false, pinIds: [...pinIds], cursor: { epoch, lastId, added } };
}
