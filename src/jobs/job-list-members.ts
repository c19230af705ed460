import type Redis from 'ioredis';
import type { Logger } from '../lib/logger';
import { cacheLookups } from '../lib/metrics';

/** How long a page's members stay cached without a job stored or removed: a bound on staleness if a bump was lost. */
export const LIST_MEMBERS_TTL_SECONDS = 60;

/** Which jobs a list page holds, in order, and how many the whole list has. */
export interface ListMembers {
  ids: string[];
  total: number;
}

// One round trip: the list's version (started at the clock when missing, never at a value old entries may carry)
// and the members cached under it. Keys carry the tenant as a hash tag, so a tenant's keys share one cluster slot.
const READ = `local version = redis.call('GET', KEYS[1])
if not version then
  version = ARGV[2]
  redis.call('SET', KEYS[1], version)
end
return {version, redis.call('GET', ARGV[1] .. version .. ARGV[3])}`;

// A job stored or removed: every list that may hold it moves to a new version (the tenant's and the all-clients one).
const BUMP = `for i, key in ipairs(KEYS) do
  redis.call('SET', key, ARGV[1], 'NX')
  redis.call('INCR', key)
end
return 1`;

type MembersRedis = Redis & {
  jobListRead(
    versionKey: string,
    entryPrefix: string,
    start: string,
    entrySuffix: string,
  ): Promise<[string, string | null]>;
  jobListBump(tenantKey: string, allKey: string, start: string): Promise<number>;
};

const ALL_CLIENTS = '*';
const versionKey = (scope: string) => `jobs:list:{${scope}}:v`;
const entryPrefix = (scope: string) => `jobs:list:{${scope}}:e:`;

/**
 * The members of job-list pages, cached by list version. A tenant's job records change many times a second while its
 * jobs run (progress, state), but which jobs a page holds, newest first, changes only when a job is stored or
 * removed: the stored records then bump the list's version (before the submit is answered), and a page read looks up
 * its members under the current version, reading the records' order and count (on the local engine, scans of the
 * whole collection) only once per version. The page's documents are still read fresh, by id, on every read, so
 * progress shows at once. When Redis cannot be used, `read` answers null and the caller reads the records directly.
 */
export function createJobListMembers(redis: Redis, logger: Logger) {
  const r = redis as MembersRedis;
  if (!r.jobListRead) {
    r.defineCommand('jobListRead', { numberOfKeys: 1, lua: READ });
    r.defineCommand('jobListBump', { numberOfKeys: 2, lua: BUMP });
  }
  const keyPrefix = redis.options.keyPrefix ?? '';
  const lookups = {
    hit: cacheLookups.labels('job_list', 'hit'),
    miss: cacheLookups.labels('job_list', 'miss'),
    bypass: cacheLookups.labels('job_list', 'bypass'),
  };

  return {
    /** A job of `clientId` was stored or removed: lists that may hold it are read again. */
    async changed(clientId: string): Promise<void> {
      await r.jobListBump(versionKey(clientId), versionKey(ALL_CLIENTS), String(Date.now()));
    },

    /**
     * The members of the page `key` of the list of `scope` (null: all clients), cached, or from `compute` (then
     * cached under the version read before it ran, so a job stored meanwhile makes the next read compute again).
     * Null when Redis cannot be used now.
     */
    async read(scope: string | null, key: string, compute: () => Promise<ListMembers>): Promise<ListMembers | null> {
      const s = scope ?? ALL_CLIENTS;
      let version: string;
      try {
        const [v, cached] = await r.jobListRead(
          versionKey(s),
          keyPrefix + entryPrefix(s),
          String(Date.now()),
          `:${key}`,
        );
        if (cached) {
          lookups.hit.inc();
          return JSON.parse(cached) as ListMembers;
        }
        version = v;
      } catch (err) {
        lookups.bypass.inc();
        logger.debug({ err: (err as Error)?.message }, 'job list members unavailable; reading the records');
        return null;
      }
      lookups.miss.inc();
      const members = await compute();
      await redis
        .set(`${entryPrefix(s)}${version}:${key}`, JSON.stringify(members), 'EX', LIST_MEMBERS_TTL_SECONDS)
        .catch(() => undefined); // not cached: the next read computes again
      return members;
    },
  };
}

export type JobListMembers = ReturnType<typeof createJobListMembers>;
