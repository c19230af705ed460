import type { Client } from 'openapi-fetch';
import { LeadServiceError, unwrap, type JsonMedia } from './errors';
import { isJobEvent, type EventsOptions, type StreamFrame } from './events';
import type { components, paths } from './generated/openapi';

export type MapsJob = components['schemas']['Job'];
export type ResearchJob = components['schemas']['ResearchJob'];
/** A job of either kind: a maps-scrape job or a company-research job, each with its status and progress. */
export type JobState = { kind: 'maps-scrape'; job: MapsJob } | { kind: 'research'; job: ResearchJob };
export type JobKind = JobState['kind'];

export const FINAL_JOB_STATUSES: readonly string[] = ['completed', 'failed', 'cancelled'];
export const isFinal = (state: JobState) => FINAL_JOB_STATUSES.includes(state.job.status);

/** The status of a job whose kind the caller may not know: a maps-scrape job's, else a research job's. */
export async function jobState(api: Client<paths, JsonMedia>, jobId: string, kind?: JobKind): Promise<JobState> {
  if (kind !== 'research') {
    const { data, error, response } = await api.GET('/api/v1/dashboard/client/jobs/{job_id}/status', {
      params: { path: { job_id: jobId } },
    });
    if (data) return { kind: 'maps-scrape', job: data };
    if (response.status !== 404 || kind) throw new LeadServiceError(response.status, error, response.headers);
  }
  const research = await unwrap(
    api.GET('/api/v1/dashboard/client/research/{research_id}/status', { params: { path: { research_id: jobId } } }),
  );
  return { kind: 'research', job: research };
}

export class JobWaitTimeout extends Error {
  override readonly name = 'JobWaitTimeout';
  constructor(
    readonly jobId: string,
    readonly last: JobState,
  ) {
    super(`job ${jobId} is still ${last.job.status}`);
  }
}

export interface WaitForJobOptions {
  /**
   * Called with the job's state when it is first read and after each of its events (and each status read); the last
   * call is the final state, before the wait answers, and none comes after.
   */
  onProgress?: (state: JobState, frame?: StreamFrame) => void;
  /** Between the job's events, its status is read this often, so progress moves while it runs (0: never). */
  statusIntervalMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Waits until a job is completed, failed or cancelled and answers its final state. The job's events on the stream
 * drive it: each event of the job is followed by a read of its status (progress {done, total}). The stream is
 * opened before the first status read, so an event that comes between the two is not missed.
 */
export async function waitForJob(
  api: Client<paths, JsonMedia>,
  events: (options: EventsOptions) => AsyncIterableIterator<StreamFrame>,
  jobId: string,
  options: WaitForJobOptions = {},
): Promise<JobState> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const stream = events({ signal: stop.signal });
  let kind: JobKind | undefined;
  let last: JobState | undefined;
  // Events and status reads both read the job; whichever first finds it final answers, and a read of the other still
  // under way is dropped, so that onProgress is never called after the wait has answered (the CLI's bar would print
  // a line after its summary).
  let answered = false;
  const observe = async (frame?: StreamFrame) => {
    const state = await jobState(api, jobId, kind);
    if (answered) return undefined;
    last = state;
    kind = state.kind;
    options.onProgress?.(state, frame);
    if (!isFinal(state)) return undefined;
    answered = true;
    return state;
  };
  const fromEvents = async () => {
    for await (const frame of stream) {
      const mine = frame.event === 'connected' || (isJobEvent(frame) && frame.data.job_id === jobId);
      const final = mine ? await observe(frame) : undefined;
      if (final) return final;
    }
    throw options.signal?.reason ?? new Error('the event stream ended');
  };
  const fromStatusReads = async () => {
    const interval = options.statusIntervalMs ?? 2000;
    for (;;) {
      if (!interval) return new Promise<never>(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, interval));
      if (stop.signal.aborted) return new Promise<never>(() => undefined);
      const final = await observe();
      if (final) return final;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    if (options.timeoutMs)
      timer = setTimeout(() => reject(new JobWaitTimeout(jobId, last ?? ({} as JobState))), options.timeoutMs);
  });
  try {
    return await Promise.race([fromEvents(), fromStatusReads(), timeout]);
  } finally {
    clearTimeout(timer);
    stop.abort();
    options.signal?.removeEventListener('abort', onAbort);
    await stream.return?.();
  }
}
