import { condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { beginJob, jobActivities, runJob } from './jobs';
import { pauseSignal, researchStateQuery, resumeSignal, type JobOutcome, type ResearchInput } from './jobs-signals';

/**
 * A company-research job: works through its companies a few at a time. Pause and resume are signals;
 * while paused no activity runs (the lanes wait on condition()), so a paused job holds no worker slot,
 * and it picks up at the next company on resume. Cancellation (even of a paused job, or while an
 * activity runs) ends it as cancelled and keeps what was found.
 */
export async function researchWorkflow(input: ResearchInput): Promise<JobOutcome> {
  const acts = jobActivities(input.retry);
  const ref = { job_id: input.job_id, client_id: input.client_id };
  let paused = input.resume?.paused ?? false;
  let seq = input.resume?.seq ?? 0;
  let next = input.resume?.next ?? 0;
  let total = input.resume?.total ?? 0;
  let done = next;
  // An older control signal (a lower seq) never undoes a newer one, whatever order they arrive in.
  setHandler(pauseSignal, (s) => {
    if (s.seq > seq) [seq, paused] = [s.seq, true];
  });
  setHandler(resumeSignal, (s) => {
    if (s.seq > seq) [seq, paused] = [s.seq, false];
  });
  setHandler(researchStateQuery, () => ({ paused, seq, next, done, total }));

  return runJob(input, async () => {
    if (!input.resume) {
      const planned = await beginJob(input, () => acts.startResearchJob(ref));
      if (planned === null) return false;
      total = planned;
    }
    let rolling = false;
    const lane = async () => {
      for (;;) {
        await condition(() => !paused);
        if (next >= total || rolling) return;
        if (workflowInfo().continueAsNewSuggested) {
          rolling = true;
          return;
        }
        const index = next++;
        await acts.researchCompany({ ...ref, index });
        done += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency ?? 4, total)) }, lane));
    if (rolling && next < total) {
      await continueAsNew<typeof researchWorkflow>({
        ...input,
        queued_event: null,
        resume: { next, total, paused, seq },
      });
    }
    // A job paused at its very end stays paused until resumed (or cancelled), like any paused job.
    await condition(() => !paused);
    return {};
  });
}
