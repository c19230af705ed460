import type Redis from 'ioredis';
import { createLocks } from '../lib/locks';

/**
 * One writer at a time per job record. MongoDB applies each update to a document atomically, but the
 * devstack's FerretDB reads and rewrites a document in separate steps, so two concurrent updates (a
 * pause from the API, a progress note from a worker) could lose one of them. Every change of a job
 * record goes through this lock, so the record means the same on every engine.
 */
export function createJobLocks(redis: Redis) {
  const locks = createLocks(redis);
  return {
    run: <T>(jobId: string, work: () => Promise<T>): Promise<T> => locks.run(`job:${jobId}`, work),
  };
}

export type JobLocks = ReturnType<typeof createJobLocks>;
