import type Redis from 'ioredis';
import type { Defaulted, QueryParams } from '../lib/contract-types';
import type { LogEntry, LogSink } from '../lib/log-tap';

const STREAM = 'logs';
const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
const SCAN_BATCH = 500;
const TRIM_EVERY_MS = 60_000;

/** The log viewer's query, its window (minutes) and limit given. */
export type LogQuery = Defaulted<QueryParams<'getLogs'>, 'minutes' | 'limit'>;

/**
 * The log viewer's store: one Redis stream of every process's lines (API, worker, engines), bounded
 * twice: at most `maxEntries` (XADD MAXLEN ~) and nothing older than `retentionMinutes` (XTRIM MINID ~,
 * at most once a minute). Entry ids are arrival times, so a look-back reads the stream newest first
 * and stops at the window's start.
 */
export function createLogStore(
  redis: Redis,
  opts: { maxEntries: number; retentionMinutes: number },
): LogSink & {
  query(q: LogQuery): Promise<{ entries: LogEntry[]; truncated: boolean }>;
} {
  let trimmedAt = 0;
  return {
    async append(entries) {
      if (!entries.length) return;
      const batch = redis.pipeline();
      for (const e of entries) {
        batch.xadd(
          STREAM,
          'MAXLEN',
          '~',
          opts.maxEntries,
          '*',
          't',
          e.timestamp,
          'c',
          e.container,
          'l',
          e.level,
          'm',
          e.message,
        );
      }
      if (Date.now() - trimmedAt > TRIM_EVERY_MS) {
        trimmedAt = Date.now();
        batch.xtrim(STREAM, 'MINID', '~', Date.now() - opts.retentionMinutes * 60_000);
      }
      await batch.exec();
    },

    async query(q) {
      const minLevel = q.level ? LEVELS.indexOf(q.level) : 0;
      const needle = q.search?.toLowerCase();
      const since = Date.now() - Math.min(q.minutes, opts.retentionMinutes) * 60_000;
      const entries: LogEntry[] = [];
      let end = '+';
      for (;;) {
        const page = await redis.xrevrange(STREAM, end, String(since), 'COUNT', SCAN_BATCH);
        for (const [, fields] of page) {
          const f: Record<string, string> = {};
          for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
          const e: LogEntry = { timestamp: f.t, container: f.c, level: f.l, message: f.m ?? '' };
          if (q.container && e.container !== q.container) continue;
          if (LEVELS.indexOf(e.level as (typeof LEVELS)[number]) < minLevel) continue;
          if (needle && !e.message.toLowerCase().includes(needle)) continue;
          if (entries.length === q.limit) return { entries, truncated: true };
          entries.push(e);
        }
        if (page.length < SCAN_BATCH) return { entries, truncated: false };
        end = `(${page[page.length - 1][0]}`;
      }
    },
  };
}

export type LogStore = ReturnType<typeof createLogStore>;
