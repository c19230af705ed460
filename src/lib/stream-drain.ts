import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Logger } from './logger';
import { drainedRecords, watchDrainLag } from './metrics';

/** A Redis stream of JSON records (field `e`) and where its records are stored for good. */
export interface DrainedStream<T> {
  /** The stream's key (the Redis key prefix applies) and, in logs, its name. */
  stream: string;
  /** The consumer group every process's drain of this stream shares. */
  group: string;
  parse(json: string): T;
  /** Stores a batch idempotently: a record stored before (a redelivered batch) is skipped, not an error. */
  store(docs: T[]): Promise<void>;
}

/** A record whose time `at` travelled as JSON (a string), parsed with `at` a Date again. */
export function parseTimed<T extends { at: Date }>(json: string): T {
  const doc = JSON.parse(json) as Omit<T, 'at'> & { at: string };
  return { ...doc, at: new Date(doc.at) } as T;
}

export interface DrainOptions {
  batch?: number;
  blockMs?: number;
  /** An entry a consumer read but did not acknowledge for this long (its process died) is taken over. */
  reclaimIdleMs?: number;
  /**
   * After a batch smaller than `batch`, wait this long before reading again, so a trickle of records is
   * stored a few at a time (one insert per record would compete with the requests that append them).
   */
  lingerMs?: number;
}

type Entries = [id: string, fields: string[]][];

export interface StreamDrain {
  /** Resolves once everything appended so far has been stored (tests and benchmarks). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Moves records from a Redis stream into MongoDB: read in batches through a consumer group, stored
 * (idempotently, by id), then acknowledged and deleted. An entry is acknowledged only after MongoDB took
 * it, so a drain that dies mid-batch leaves it pending, and a live drain takes it over. Runs in every
 * worker process; several drains share the work through the group.
 */
export function startStreamDrain<T>(
  redis: Redis,
  logger: Logger,
  spec: DrainedStream<T>,
  opts: DrainOptions = {},
): StreamDrain {
  const { stream: STREAM, group: GROUP } = spec;
  const batch = opts.batch ?? 1000;
  const blockMs = opts.blockMs ?? 1000;
  const reclaimIdleMs = opts.reclaimIdleMs ?? 30_000;
  const lingerMs = opts.lingerMs ?? 200;
  const reader = redis.duplicate(); // blocking reads get their own connection
  reader.on('error', () => undefined);
  const consumer = randomUUID();
  let stopped = false;
  let lastReclaim = 0;

  async function store(entries: Entries | null | undefined): Promise<number> {
    if (!entries?.length) return 0;
    const docs = entries.flatMap(([, fields]) => {
      const json = fields[fields.indexOf('e') + 1];
      try {
        return json ? [spec.parse(json)] : [];
      } catch {
        return []; // not a record of ours: dropped below, never retried forever
      }
    });
    await spec.store(docs);
    const ids = entries.map(([id]) => id);
    await redis
      .multi()
      .xack(STREAM, GROUP, ...ids)
      .xdel(STREAM, ...ids)
      .exec();
    drainedRecords.inc({ stream: STREAM }, entries.length);
    return entries.length;
  }

  async function ensureGroup() {
    try {
      // Through EVAL: ioredis does not apply its key prefix to XGROUP's key, but does to EVAL's KEYS.
      await redis.eval(`return redis.call('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')`, 1, STREAM, GROUP);
    } catch (err) {
      if (!/BUSYGROUP/.test((err as Error).message)) throw err;
    }
  }

  async function step(): Promise<number> {
    if (Date.now() - lastReclaim > reclaimIdleMs / 2) {
      lastReclaim = Date.now();
      const [, claimed] = (await redis.xautoclaim(STREAM, GROUP, consumer, reclaimIdleMs, '0-0', 'COUNT', batch)) as [
        string,
        Entries,
      ];
      // Our own pending entries (a batch whose store failed) come back too: '0' reads them.
      const own = (await redis.xreadgroup('GROUP', GROUP, consumer, 'COUNT', batch, 'STREAMS', STREAM, '0')) as
        [string, Entries][] | null;
      // Our own idle entries are in both answers: each is stored once.
      const retried = new Map([...claimed, ...(own?.[0]?.[1] ?? [])].map((entry) => [entry[0], entry]));
      return store([...retried.values()]);
    }
    const fresh = (await reader.xreadgroup(
      'GROUP',
      GROUP,
      consumer,
      'COUNT',
      batch,
      'BLOCK',
      blockMs,
      'STREAMS',
      STREAM,
      '>',
    )) as [string, Entries][] | null;
    return store(fresh?.[0]?.[1]);
  }

  // A stored record is deleted from the stream, so the first entry left is the oldest still waiting.
  const unwatch = watchDrainLag(STREAM, async () => {
    const [first] = await redis.xrange(STREAM, '-', '+', 'COUNT', 1);
    return first ? Number(first[0].split('-')[0]) : null;
  });

  const running = (async () => {
    await reader.connect().catch(() => undefined);
    let groupReady = false;
    while (!stopped) {
      try {
        if (!groupReady) {
          await ensureGroup();
          groupReady = true;
        }
        const stored = await step();
        if (stored > 0 && stored < batch && !stopped) await sleep(lingerMs);
      } catch (err) {
        if (stopped) break;
        if (/NOGROUP/.test((err as Error).message)) groupReady = false;
        logger.warn({ err: (err as Error).message, stream: STREAM }, 'stream drain: retrying');
        await sleep(1000);
      }
    }
  })();

  return {
    async flush() {
      if (!(await storedSoFar(redis, STREAM)))
        throw new Error(`stream drain: ${STREAM} still has records waiting after 30 s`);
    },
    async stop() {
      stopped = true;
      unwatch();
      reader.disconnect();
      await running;
    },
  };
}

/**
 * Appends one record to a drained stream, durably before it returns: to the Redis stream (append-only file),
 * or, when Redis does not take it, stored in MongoDB directly, with a warning (`fields` and `message`).
 * Throws only if neither took it.
 */
export async function appendOrStore<T>(
  redis: Redis,
  logger: Logger,
  spec: Pick<DrainedStream<T>, 'stream' | 'store'>,
  doc: T,
  warning: { fields: Record<string, unknown>; message: string },
): Promise<void> {
  try {
    await redis.xadd(spec.stream, '*', 'e', JSON.stringify(doc));
    return;
  } catch (err) {
    logger.warn({ err: (err as Error).message, ...warning.fields }, warning.message);
  }
  await spec.store([doc]);
}

/** Several drains run and flushed as one (a worker drains every stream). */
export function allDrains(drains: StreamDrain[]): StreamDrain {
  return {
    flush: async () => void (await Promise.all(drains.map((d) => d.flush()))),
    stop: async () => void (await Promise.all(drains.map((d) => d.stop()))),
  };
}

/**
 * Whether every record appended to `stream` before this call has been stored, waiting up to `timeoutMs`
 * for the drains: a drain deletes an entry once stored, so none at or before the newest id means all
 * of them are. Later appends do not hold it up (it answers under a steady flow of records too).
 */
export async function storedSoFar(redis: Redis, stream: string, timeoutMs = 30_000): Promise<boolean> {
  const newest = (await redis.xrevrange(stream, '+', '-', 'COUNT', 1))[0]?.[0];
  if (!newest) return true;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await redis.xrange(stream, '-', newest, 'COUNT', 1)).length) return true;
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
}
