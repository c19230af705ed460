import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { chunksOf } from '../lib/arrays';
import type { Logger } from '../lib/logger';
import { cacheLookups } from '../lib/metrics';
import type { JobType } from './job.model';

/** An index untouched this long goes (an idle tenant's); the next list read rebuilds it from the records. */
const LIST_INDEX_TTL_SECONDS = 24 * 3600;
/** Ids written to Redis per command while an index is rebuilt. */
const REBUILD_CHUNK = 1000;
/**
 * The member that marks an index as complete, added last by a rebuild with the Redis server's run id: a Redis that
 * restarted (or a replica promoted) may have come back without its last writes (the append-only file is synced
 * every second), so a set marked by another run is rebuilt. Its score sorts it after every job; ids are UUIDs, so no
 * job has such an id.
 */
const COMPLETE = '~complete:';

/**
 * A page of a tenant's jobs of one type, newest first: their ids, how many jobs the list has in all, and the
 * version of the tenant's job records when the page was read (see `changed`).
 */
export interface ListPage {
  ids: string[];
  total: number;
  version: string;
}

// A page of a complete index in one round trip: {total, ids, records' version}, or {-1, run id} when the set is not
// complete for this run of the server. ZREVRANGE orders equal scores by member, descending: the list's order
// (created_at, then _id). The version is '<run id>:<epoch>:<changes>' ('<run id>::0' before any change, or after the
// key expired): a server restarted from an append-only file that lacked its last changes would count the same
// numbers again for other records, so a version read in one run of the server never equals one of another run.
const READ = `local run = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
if not redis.call('ZSCORE', KEYS[1], ARGV[3] .. run) then return {-1, run} end
redis.call('EXPIRE', KEYS[1], ARGV[4])
local v = redis.call('HMGET', KEYS[2], 'epoch', 'n')
local version = run .. ':' .. (v[1] or '') .. ':' .. (v[2] or '0')
return {redis.call('ZCARD', KEYS[1]) - 1, redis.call('ZREVRANGE', KEYS[1], ARGV[1], ARGV[2]), version}`;

// A change to a tenant's job records: the version's count goes up; a version key made anew (first change, or after
// it expired or Redis lost it) gets a new epoch, so a version never comes back with other records behind it.
const CHANGED = `if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('HSET', KEYS[1], 'epoch', ARGV[1]) end
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1`;

// Marks a rebuilt set complete for a run (any mark of another run goes).
const MARK = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '-inf')
redis.call('ZADD', KEYS[1], '-inf', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1`;

const ADD = `redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;

type IndexRedis = Redis & {
  jobListRead(
    key: string,
    versionKey: string,
    start: number,
    stop: number,
    complete: string,
    ttl: number,
  ): Promise<[number, string[] | string, string?]>;
  jobRecordsChanged(versionKey: string, epoch: string, ttl: number): Promise<number>;
  jobListMark(key: string, mark: string, ttl: number): Promise<number>;
  jobListAdd(key: string, score: number, id: string, ttl: number): Promise<number>;
};

const UNUSABLE = Symbol('redis unusable');
const indexKey = (clientId: string, type: JobType) => `jobs:list:{${clientId}}:${type}`;
const versionKey = (clientId: string) => `jobs:version:{${clientId}}`;

/**
 * A secondary index of each tenant's jobs of a type, newest first, in a Redis sorted set (score: created_at in ms,
 * member: the job's id). The local document engine can only scan for the list's order and count (every list read
 * was two scans of the whole jobs collection); this answers both from the set, and the page's jobs are then read
 * by id, fresh. Jobs are only ever stored or (when a submit is undone) removed, never changed in what the index
 * holds, so the set stays exact with two rules: a job is added after its record is stored and before its submit
 * is answered (a list read after the answer holds it), and a set that is missing or not complete for this run of
 * the server (Redis lost it, restarted without its last writes, or it expired idle) is rebuilt from the records, as
 * a union with what submits add meanwhile. An id whose record
 * is not there (an undone submit whose removal did not reach Redis) is dropped when a page meets it.
 */
export function createJobListIndex(redis: Redis, logger: Logger) {
  const r = redis as IndexRedis;
  if (!r.jobListRead) {
    r.defineCommand('jobListRead', { numberOfKeys: 2, lua: READ });
    r.defineCommand('jobRecordsChanged', { numberOfKeys: 1, lua: CHANGED });
    r.defineCommand('jobListMark', { numberOfKeys: 1, lua: MARK });
    r.defineCommand('jobListAdd', { numberOfKeys: 1, lua: ADD });
  }
  const lookups = {
    hit: cacheLookups.labels('job_list', 'hit'),
    miss: cacheLookups.labels('job_list', 'miss'),
    bypass: cacheLookups.labels('job_list', 'bypass'),
  };

  /** A Redis step's answer, or UNUSABLE when Redis failed (the caller then reads the records). */
  async function viaRedis<T>(step: () => Promise<T>): Promise<T | typeof UNUSABLE> {
    try {
      return await step();
    } catch (err) {
      lookups.bypass.inc();
      logger.debug({ err: (err as Error)?.message }, 'job list index unavailable; reading the records');
      return UNUSABLE;
    }
  }

  async function store(key: string, run: string, jobs: { _id: string; created_at: Date }[]) {
    for (const part of chunksOf(jobs, REBUILD_CHUNK)) {
      const args = part.flatMap((j) => [j.created_at.getTime(), j._id]);
      await redis.zadd(key, ...args);
    }
    await r.jobListMark(key, COMPLETE + run, LIST_INDEX_TTL_SECONDS);
  }

  return {
    /** A job was stored: lists read after this hold it. */
    async added(clientId: string, type: JobType, id: string, createdAt: Date): Promise<void> {
      await r.jobListAdd(indexKey(clientId, type), createdAt.getTime(), id, LIST_INDEX_TTL_SECONDS);
    },

    /**
     * A record of the tenant's jobs changed (its state, progress or control): pages read after this carry a newer
     * version, so a page kept with an older one is read again (job-control's list). Every write to a job record
     * ends with this before it is answered or acknowledged; it throws when Redis cannot take it (the write is then
     * retried, as when its lock cannot be had).
     */
    async changed(clientId: string): Promise<void> {
      await r.jobRecordsChanged(versionKey(clientId), randomUUID(), LIST_INDEX_TTL_SECONDS);
    },

    /** Jobs whose records are not there (an undone submit, or an id a page met without its record). */
    async removed(clientId: string, type: JobType, ids: string[]): Promise<void> {
      if (ids.length) await redis.zrem(indexKey(clientId, type), ...ids);
    },

    /**
     * The page at `skip` of `size` jobs, from the index, rebuilt first from `all` (every job of the list, in any
     * order) when it is not complete. Null when Redis cannot be used now: the caller reads the records.
     */
    async page(
      clientId: string,
      type: JobType,
      skip: number,
      size: number,
      all: () => Promise<{ _id: string; created_at: Date }[]>,
    ): Promise<ListPage | null> {
      const key = indexKey(clientId, type);
      const read = () =>
        r.jobListRead(key, versionKey(clientId), skip, skip + size - 1, COMPLETE, LIST_INDEX_TTL_SECONDS);
      let found = await viaRedis(read);
      if (found === UNUSABLE) return null;
      if (found[0] >= 0) lookups.hit.inc();
      else {
        lookups.miss.inc();
        const run = found[1] as string;
        const jobs = await all(); // the records' engine failing is the request's failure, not a bypass
        if ((await viaRedis(() => store(key, run, jobs))) === UNUSABLE) return null;
        found = await viaRedis(read);
        if (found === UNUSABLE || found[0] < 0) return null; // the server restarted meanwhile: read the records
      }
      return {
        ids: (found[1] as string[]).filter((id) => !id.startsWith(COMPLETE)),
        total: found[0],
        version: found[2] ?? '',
      };
    },
  };
}

export type JobListIndex = ReturnType<typeof createJobListIndex>;
