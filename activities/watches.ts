import { Context } from '@temporalio/activity';
import type { WatchRuns } from '../src/watches/watch-runs';

/** How often a run started again looks at its job's record while it waits for the job to end. */
const JOB_END_POLL_MS = 2000;

export function createWatchActivities(deps: { runs: WatchRuns }) {
  return {
    /** Records the run's job (once, whatever the retries) and answers how to run it, or why the run does nothing. */
    startWatchRun: (input: Parameters<WatchRuns['start']>[0]) => deps.runs.start(input),

    /** Counts the leads the ended run saw first, records them on the run and announces them (watch.new_leads). */
    finishWatchRun: (input: Parameters<WatchRuns['finish']>[0]) => deps.runs.finish(input),

    /**
     * Waits until the run's job has ended, heartbeating (for a run whose job's workflow was started by an earlier
     * start of the same run, so it is no child of this one).
     */
    async awaitJobEnd(ref: Parameters<WatchRuns['jobEnded']>[0]): Promise<void> {
      const ctx = Context.current();
      while (!(await deps.runs.jobEnded(ref))) {
        ctx.heartbeat();
        await ctx.sleep(JOB_END_POLL_MS);
      }
    },
  };
}
