import { indexResources } from '../idap/search/index-maintenance';
import type { ResourceType } from '../idap/resources/resource-writes';
import type { RunLocked } from '../lib/locks';
import type { WriteGate } from './write-gate';

/** Resources an index step of a job's feed takes at most (the rest wait for the next step). */
export const FEED_STEP = 300;

type Ref = { type: ResourceType; id: string };

/**
 * Feeds what a job stores to the search index while the job goes on, behind the job write gate (index steps are
 * writes too), so that its results are searchable by the time it completes (docs/idap.md, "From job to
 * searchable"). One step at a time, each taking everything stored since the last one began (up to FEED_STEP): with
 * a slow provider a step follows each location and overlaps the next one's calls; with a fast one, steps grow
 * instead of queueing, since a step costs a dozen round trips to the store whatever its size. A step that fails is
 * handed to `failed` and left to the job's follow-up index workflow, which indexes every resource of the job again
 * (from what is stored then; what is indexed already is not rewritten): the feed never fails the job.
 */
export function createIndexFeed(
  clientId: string,
  deps: { gate: WriteGate; lock: RunLocked; failed: (err: unknown) => void },
) {
  const pending: Ref[] = [];
  let running: Promise<void> | null = null;
  const drain = async () => {
    while (pending.length) {
      const step = pending.splice(0, FEED_STEP);
      await deps.gate(() => indexResources(clientId, step, deps.lock)).catch(deps.failed);
    }
    running = null;
  };
  return {
    /** Hands over resources just stored. */
    add(refs: Ref[]): void {
      if (!refs.length) return; // (drain would end at once, and its settled promise never start another)
      pending.push(...refs);
      running ??= drain();
    },
    /** Resolves once everything handed over is indexed, or left to the index workflow; never rejects. */
    settled: (): Promise<void> => running ?? Promise.resolve(),
  };
}

export type IndexFeed = ReturnType<typeof createIndexFeed>;
