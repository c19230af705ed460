import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { Activities } from '../../activities';
import { researchWorkflow } from '../../workflows/research';
import { mapsScrapeWorkflow } from '../../workflows/jobs';
import { pauseSignal, researchStateQuery, resumeSignal, type ResearchInput } from '../../workflows/jobs-signals';
import { HOUR, useTimeSkipping } from '../support/time-skipping';

type JobStandIns = Pick<
  Activities,
  'startResearchJob' | 'researchCompany' | 'startMapsJob' | 'scrapeLocations' | 'finishJob'
>;

/**
 * The job workflows' waits on Temporal's time-skipping test server, with stand-in activities typed from the
 * real ones: a research job paused for days runs nothing and picks up where it stopped; a job cancelled
 * before it began waits its grace for the run's cancel; provider failures are retried with backoff.
 */
describe('job workflows: pause, cancel and retries over real time spans', () => {
  const ts = useTimeSkipping();
  let n = 0;

  function standIns(opts: { companies?: number; failFirst?: number; proceed?: boolean } = {}) {
    const calls = { researched: [] as number[], finished: [] as string[], attempts: 0 };
    const activities: JobStandIns = {
      async startResearchJob() {
        return { proceed: opts.proceed ?? true, total: opts.companies ?? 3, event: null };
      },
      async researchCompany(input) {
        calls.attempts += 1;
        if (calls.attempts <= (opts.failFirst ?? 0)) throw ApplicationFailure.retryable('provider busy (503)');
        calls.researched.push(input.index);
        return { found: true };
      },
      async startMapsJob() {
        return { proceed: opts.proceed ?? true, total: 1, event: null };
      },
      async scrapeLocations(input) {
        return { results_count: input.count ?? 0, next: input.to, indexed: true };
      },
      async finishJob(input) {
        calls.finished.push(input.status);
        return null;
      },
    };
    return { calls, activities };
  }

  type StandInCalls = ReturnType<typeof standIns>['calls'];

  const researchInput = (): ResearchInput => ({
    job_id: `research-${++n}-${Date.now()}`,
    client_id: 'c1',
    concurrency: 1,
    retry: { initial_ms: 1000, max_attempts: 8 },
    index_results: false,
  });

  /** A research job run on the stand-ins while `drive` does what the test does with it (and sees their calls). */
  async function researchJob<T>(
    opts: Parameters<typeof standIns>[0],
    drive: (handle: WorkflowHandle<typeof researchWorkflow>, calls: StandInCalls) => Promise<T>,
  ) {
    const { calls, activities } = standIns(opts);
    const { worker, taskQueue } = await ts.worker(activities);
    const result = await worker.runUntil(async () => {
      const input = researchInput();
      const handle = await ts.env.client.workflow.start(researchWorkflow, {
        taskQueue,
        workflowId: input.job_id,
        args: [input],
      });
      return drive(handle, calls);
    });
    return { calls, result };
  }

  it('a research job paused for three days runs nothing meanwhile, then resumes at the next company', async () => {
    const { calls, result: seen } = await researchJob({ companies: 3 }, async (handle, made) => {
      await handle.signal(pauseSignal, { seq: 1 });
      const atPause = await handle.query(researchStateQuery);
      await ts.env.sleep(72 * HOUR);
      const afterThreeDays = { ...(await handle.query(researchStateQuery)), researched: [...made.researched] };
      await handle.signal(resumeSignal, { seq: 2 });
      return { atPause, afterThreeDays, outcome: await handle.result() };
    });
    expect(seen.atPause.paused).toBe(true);
    expect(seen.afterThreeDays.paused).toBe(true);
    // Nothing started while paused: only a company already under way at the pause finished.
    expect(seen.afterThreeDays.next).toBe(seen.atPause.next);
    expect(seen.afterThreeDays.researched.length).toBe(seen.atPause.next);
    expect(seen.outcome.status).toBe('completed');
    expect(calls.researched.sort()).toEqual([0, 1, 2]);
    expect(calls.finished).toEqual(['completed']);
  });

  it('an older resume never undoes a newer pause, whatever order they arrive in', async () => {
    const { calls, result: state } = await researchJob({ companies: 2 }, async (handle) => {
      await handle.signal(pauseSignal, { seq: 5 });
      await handle.signal(resumeSignal, { seq: 4 }); // sent before the pause, delivered after it
      await ts.env.sleep(HOUR);
      const held = await handle.query(researchStateQuery);
      await handle.cancel();
      await handle.result().catch(() => undefined);
      return held;
    });
    expect(state).toMatchObject({ paused: true, seq: 5 });
    expect(calls.finished).toEqual(['cancelled']);
  });

  it('a paused job cancelled a week later ends cancelled, keeping what it found', async () => {
    const { calls, result: failure } = await researchJob({ companies: 3 }, async (handle) => {
      await handle.signal(pauseSignal, { seq: 1 });
      await ts.env.sleep(7 * 24 * HOUR);
      await handle.cancel();
      return handle.result().then(
        () => null,
        (err: unknown) => err,
      );
    });
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(calls.finished).toEqual(['cancelled']);
  });

  it('a job cancelled before it began waits its one-minute grace for the cancel, then ends cancelled', async () => {
    const { calls, activities } = standIns({ proceed: false });
    const { worker, taskQueue } = await ts.worker(activities);
    const run = await worker.runUntil(async () => {
      const { job_id, client_id, retry } = researchInput();
      const input = { job_id, client_id, retry, index_results: false, params: { query: 'bakery', country_code: 'NL' } };
      const handle = await ts.env.client.workflow.start(mapsScrapeWorkflow, {
        taskQueue,
        workflowId: input.job_id,
        args: [input],
      });
      const outcome = await handle.result();
      return { outcome, described: await handle.describe() };
    });
    const waited = run.described.closeTime!.getTime() - run.described.startTime.getTime();
    expect(run.outcome.status).toBe('cancelled');
    expect(waited).toBeGreaterThanOrEqual(60_000);
    expect(waited).toBeLessThan(2 * 60_000);
    expect(calls.finished).toEqual(['cancelled']);
  });

  it('a provider that is busy for minutes is retried with backoff until it answers', async () => {
    const { calls, result: outcome } = await researchJob({ companies: 1, failFirst: 5 }, (handle) => handle.result());
    expect(outcome.status).toBe('completed');
    expect(calls.attempts).toBe(6); // five refusals (1 s, 2 s, 4 s, 8 s, 16 s apart), then the answer
    expect(calls.researched).toEqual([0]);
  });
});
