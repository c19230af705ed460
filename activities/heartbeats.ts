import { Context } from '@temporalio/activity';

// Heartbeats and cancellation for the long activities of every area (jobs, research, the search index's re-rank).

/** The activity's cancellation (its run was cancelled, or its worker is stopping) as an AbortSignal. */
export const activitySignal = () => Context.current().cancellationSignal;
/** The details each running activity last heartbeated, which keepAlive repeats. */
const lastDetails = new WeakMap<Context, unknown>();
export const heartbeat = (details?: unknown) => {
  const ctx = Context.current();
  lastDetails.set(ctx, details);
  ctx.heartbeat(details);
};

/**
 * Runs an activity's work with a keep-alive: its last heartbeat details (its checkpoint, or those it
 * started from) are repeated every second, so an activity that waits its turn at the write gate or
 * on a slow store is not taken for a dead one, while a worker that dies stops heartbeating and its
 * activity is retried elsewhere from the last checkpoint.
 */
export async function keepAlive<T>(work: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(
    () => ctx.heartbeat(lastDetails.has(ctx) ? lastDetails.get(ctx) : ctx.info.heartbeatDetails),
    1000,
  );
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
