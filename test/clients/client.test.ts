import {
  createLeadServiceClient,
  isJobEvent,
  isWatchEvent,
  LeadServiceError,
  unwrap,
  type JobState,
  type StreamFrame,
} from '@lead-service/client';
import { approvalMail, decideByLink, linkOf } from '../agents/agent-helpers';
import { eventually, useTestApi } from '../support/harness';
import {
  agentOf,
  droppableProxy,
  SMALL_JOB,
  SMALL_JOB_PLACES,
  WATCHED_JOB,
  WATCHED_JOB_PLACES,
} from './client-fixtures';

const SUBMIT = '/api/v1/dashboard/client/jobs/maps-scrape/submit';

/** Frames of `stream` until one matches (all of them, in order, the match last). */
async function framesUntil(stream: AsyncIterator<StreamFrame>, match: (f: StreamFrame) => boolean) {
  const seen: StreamFrame[] = [];
  for (;;) {
    const { value, done } = await stream.next();
    if (done) throw new Error(`the stream ended after ${seen.map((f) => f.event).join(', ')}`);
    seen.push(value);
    if (match(value)) return seen;
  }
}

describe('@lead-service/client against the service', () => {
  const ctx = useTestApi();
  let agent: Awaited<ReturnType<typeof agentOf>>;
  let lead: ReturnType<typeof createLeadServiceClient>;
  beforeAll(async () => {
    agent = await agentOf(ctx.api, ctx.admin, 'Typed', 41);
    lead = createLeadServiceClient({ baseUrl: ctx.api.url, token: agent.token });
  });

  it('submits a job, streams its events typed from the contract, waits for it and reads its results', async () => {
    const stream = lead.events();
    try {
      const [connected] = await framesUntil(stream, (f) => f.event === 'connected');
      expect(connected.event === 'connected' && connected.data.client_id).toBe(agent.client.client_id);
      const { job_id } = await unwrap(lead.api.POST(SUBMIT, { body: SMALL_JOB }));
      const progress: JobState[] = [];
      const final = await lead.waitForJob(job_id, { onProgress: (state) => progress.push(state), timeoutMs: 45_000 });
      expect(final.kind).toBe('maps-scrape');
      expect(final.job.status).toBe('completed');
      expect(final.job.progress.done).toBe(final.job.progress.total);
      expect(progress.at(-1)).toEqual(final);

      const frames = await framesUntil(stream, (f) => f.event === 'job.completed' && f.data.job_id === job_id);
      const mine = frames.filter(isJobEvent).filter((f) => f.data.job_id === job_id);
      expect(mine.map((f) => f.event)).toEqual(['job.queued', 'job.started', 'job.completed']);
      const completed = mine[2];
      expect(completed.data).toEqual(expect.objectContaining({ status: 'completed', job_type: 'maps-scrape' }));
      expect(completed.data.results_count).toBe(SMALL_JOB_PLACES().length);
      expect(completed.id).toMatch(/^\d+-\d+$/);

      const results = await unwrap(
        lead.api.GET('/api/v1/dashboard/client/jobs/{job_id}/results', {
          params: { path: { job_id }, query: { page: 1, page_size: 100 } },
        }),
      );
      expect(results.total).toBe(SMALL_JOB_PLACES().length);
      expect(results.results.map((r) => r.name).sort()).toEqual(
        SMALL_JOB_PLACES()
          .map((p) => p.name)
          .sort(),
      );
    } finally {
      await stream.return?.();
    }
  }, 60_000);

  it('waitForJob calls onProgress last with the final state, never after it answered', async () => {
    // Status reads every 5 ms keep one under way most of the time, beside the read that follows the job's events:
    // whichever finds the job final answers, and the other's answer, when it comes, must not reach onProgress.
    let inFlight = 0;
    const counting = createLeadServiceClient({
      baseUrl: ctx.api.url,
      token: agent.token,
      fetch: async (input, init) => {
        inFlight += 1;
        try {
          return await fetch(input, init);
        } finally {
          inFlight -= 1;
        }
      },
    });
    for (let round = 0; round < 3; round++) {
      const { job_id } = await unwrap(counting.api.POST(SUBMIT, { body: SMALL_JOB }));
      let answered = false;
      const late: JobState[] = [];
      const progress: JobState[] = [];
      const final = await counting.waitForJob(job_id, {
        statusIntervalMs: 5,
        timeoutMs: 45_000,
        onProgress: (state) => (answered ? late : progress).push(state),
      });
      answered = true;
      expect(progress.at(-1)).toEqual(final);
      // Until every read still under way has answered (the stream, closed, ends its own request).
      await eventually(async () => (inFlight === 0 ? true : undefined), 10_000, 5, 'the reads under way answered');
      expect(late).toEqual([]);
    }
  }, 120_000);

  it('keeps a watch with the typed helpers: created, run and waited for, changed, paused, removed', async () => {
    const stream = lead.events();
    try {
      await framesUntil(stream, (f) => f.event === 'connected');
      const watch = await lead.watches.create({
        name: 'Florists in Utrecht',
        maps_scrape: WATCHED_JOB,
        cadence: { interval_seconds: 86_400 },
      });
      expect(watch).toMatchObject({ job_type: 'maps-scrape', state: 'active', schedule_id: `watch-${watch.watch_id}` });
      const known = (await lead.watches.runs(watch.watch_id)).runs.map((r) => r.run_id);
      await lead.watches.trigger(watch.watch_id);
      const run = await lead.watches.waitForRun(watch.watch_id, { known, intervalMs: 200, timeoutMs: 60_000 });
      expect(run).toMatchObject({ status: 'completed', new_leads_count: WATCHED_JOB_PLACES().length });
      const [announced] = (await framesUntil(stream, isWatchEvent)).filter(isWatchEvent);
      expect(announced.data).toMatchObject({ watch_id: watch.watch_id, job_id: run.job_id, new_leads: run.new_leads });
      expect((await lead.jobState(run.job_id!)).job).toMatchObject({ watch_id: watch.watch_id, status: 'completed' });

      const changed = await lead.watches.update(watch.watch_id, { cadence: { cron: '0 8 * * *' } });
      expect(changed).toMatchObject({ cadence: { cron: '0 8 * * *', time_zone: 'UTC' }, last_run: run });
      expect((await lead.watches.pause(watch.watch_id)).state).toBe('paused');
      expect((await lead.watches.list({ state: 'paused' })).watches.map((w) => w.watch_id)).toEqual([watch.watch_id]);
      expect((await lead.watches.resume(watch.watch_id)).state).toBe('active');
      expect(await lead.watches.remove(watch.watch_id)).toEqual({ watch_id: watch.watch_id, deleted: true });
      await expect(lead.watches.get(watch.watch_id)).rejects.toMatchObject({ status: 404, detail: 'Watch not found' });
    } finally {
      await stream.return?.();
    }
  }, 90_000);

  it('answers an error as a LeadServiceError with its status and {detail}', async () => {
    const missing = unwrap(
      lead.api.GET('/api/v1/dashboard/client/jobs/{job_id}/status', {
        params: { path: { job_id: '00000000-0000-4000-8000-000000000000' } },
      }),
    );
    await expect(missing).rejects.toMatchObject({ name: 'LeadServiceError', status: 404, detail: 'Job not found' });

    const invalid = await unwrap(lead.api.POST(SUBMIT, { body: { ...SMALL_JOB, country_code: 'nl' } })).catch((e) => e);
    expect(invalid).toBeInstanceOf(LeadServiceError);
    expect(invalid.status).toBe(422);
    expect(invalid.errors).toEqual([expect.objectContaining({ location: 'body', field: 'country_code' })]);

    const stranger = createLeadServiceClient({ baseUrl: ctx.api.url, token: 'lpat_not-a-token' }).events();
    await expect(stranger.next()).rejects.toMatchObject({ status: 401, detail: expect.any(String) });
  });

  it('resumes the stream after a drop with Last-Event-ID: the events sent meanwhile come once', async () => {
    const proxy = await droppableProxy(ctx.api.url);
    const stream = createLeadServiceClient({ baseUrl: proxy.url, token: agent.token }).events();
    try {
      const [connected] = await framesUntil(stream, (f) => f.event === 'connected');
      proxy.drop();
      // Submitted while the stream is down (EventSource waits the server's retry, 3 s, before reconnecting).
      const { job_id } = await unwrap(lead.api.POST(SUBMIT, { body: { ...SMALL_JOB, max_locations: 1 } }));
      const frames = await framesUntil(stream, (f) => f.event === 'job.completed' && f.data.job_id === job_id);
      const mine = frames.filter(isJobEvent).filter((f) => f.data.job_id === job_id);
      expect(mine.map((f) => f.event)).toEqual(['job.queued', 'job.started', 'job.completed']);
      expect(new Set(frames.map((f) => f.id)).size).toBe(frames.length);
      expect(proxy.lastEventIds).toEqual([null, connected.id]);
    } finally {
      await stream.return?.();
      await proxy.close();
    }
  }, 60_000);

  it('requestAccess polls at the service interval, keeps to slow_down and returns the approved token', async () => {
    const polls: { at: number; status: number; slowDown: boolean }[] = [];
    // The first poll is preceded by one of this test's own, so the service answers it 429 slow_down.
    let jumpedAhead = false;
    const jumpAhead = async (request: Request) => {
      if (!jumpedAhead && request.url.includes('/status?poll_token=')) {
        jumpedAhead = true;
        await fetch(request.url);
      }
      return fetch(request);
    };
    const anonymous = createLeadServiceClient({ baseUrl: ctx.api.url, fetch: jumpAhead as typeof fetch });
    let requestId = '';
    const approved = await anonymous.requestAccess(
      {
        client_id: agent.client.client_id,
        owner_email: 'dev@agency.test',
        project_name: 'typed-client',
        requested_scopes: ['jobs:read'],
      },
      {
        onReceipt: (receipt) => (requestId = receipt.request_id),
        onPoll: (poll) => {
          polls.push({ at: Date.now(), status: poll.status, slowDown: poll.slowDown });
          if (poll.slowDown)
            void approvalMail(ctx.api, ctx.admin, agent.client.admin_email, requestId).then((mail) =>
              decideByLink(linkOf(mail, 'approve')),
            );
        },
      },
    );
    expect(approved.status).toBe('approved');
    expect(approved.access_token).toMatch(/^lpat_/);
    expect(polls[0]).toMatchObject({ status: 429, slowDown: true });
    expect(polls.slice(1).every((p) => p.status === 200)).toBe(true);
    const gaps = polls.slice(1).map((p, i) => p.at - polls[i].at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(2900);

    const tokenStatus = createLeadServiceClient({ baseUrl: ctx.api.url, token: approved.access_token! });
    await expect(unwrap(tokenStatus.api.GET('/api/v1/auth/pat/status'))).resolves.toMatchObject({
      valid: true,
      token: expect.objectContaining({ project_name: 'typed-client', status: 'active' }),
    });
  }, 60_000);
});
