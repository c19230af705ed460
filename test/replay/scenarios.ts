import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Activities } from '../../activities';
import type { JobEvent, JobEventName } from '../../src/events/event-bus';
import { accessRequestWorkflow } from '../../workflows/access-requests';
import { accessRequestWorkflowId, decideUpdate, type AccessRequestInput } from '../../workflows/access-request-api';
import { contentDeployHookWorkflow } from '../../workflows/content';
import { digestTickWorkflow } from '../../workflows/digests';
import { idapRerankWorkflow } from '../../workflows/idap';
import { rerankWorkflowId } from '../../src/idap/idap.workflows';
import { integrationBillingSyncWorkflow } from '../../workflows/integration-billing';
import { mapsScrapeWorkflow } from '../../workflows/jobs';
import {
  jobIndexWorkflowId,
  jobWebhookWorkflowId,
  pauseSignal,
  resumeSignal,
  type MapsScrapeInput,
  type ResearchInput,
} from '../../workflows/jobs-signals';
import { pinReservationWorkflow } from '../../workflows/pin-reservation';
import {
  completeUpdate,
  extendHoldUpdate,
  pinCreatedWorkflowId,
  pinReservationWorkflowId,
  releaseSignal,
  reserveUpdate,
  type PinReservationInput,
} from '../../workflows/pin-reservation-api';
import { researchWorkflow } from '../../workflows/research';
import { retentionPurgeWorkflow } from '../../workflows/retention';
import { watchRunWorkflow } from '../../workflows/watches';
import { watchRunWorkflowId } from '../../workflows/watches-api';

const HOUR = 3_600_000;

/** What a scenario runs against: the time-skipping server's client, and a worker of its stand-ins on `taskQueue`. */
export interface Recording {
  env: TestWorkflowEnvironment;
  client: Client;
  taskQueue: string;
}

/**
 * One run of a workflow (and of the children it starts) through the paths a production run takes, with
 * stand-in activities typed from the real ones: only their answers enter the history, which is all a replay
 * reads. `run` answers the histories to keep, by file name (without .json) and workflow id.
 */
export interface Scenario {
  name: string;
  activities: Partial<Activities>;
  run(rec: Recording): Promise<Record<string, string>>;
}

const CLIENT = 'c0ffee00-0000-4000-8000-000000000001';

const jobEvent = (jobId: string, event: JobEventName, type: 'maps-scrape' | 'research', extra = {}): JobEvent => ({
  id: `1700000000000-${event.length}`,
  event,
  data: {
    job_id: jobId,
    job_type: type,
    status: event.slice(4),
    client_id: CLIENT,
    occurred_at: '2025-03-14T09:30:00.000Z',
    ...extra,
  },
});

/** An activity stand-in whose first call fails as retryable (a retry in the history), answering `answer` after. */
function failsOnce<T>(reason: string, answer: T) {
  let calls = 0;
  return async () => {
    if (++calls === 1) throw ApplicationFailure.retryable(reason);
    return answer;
  };
}

const jobInput = (jobId: string, type: 'maps-scrape' | 'research') => ({
  job_id: jobId,
  client_id: CLIENT,
  webhook_url: 'https://hooks.example/jobs',
  queued_event: jobEvent(jobId, 'job.queued', type),
  retry: { initial_ms: 1000, max_attempts: 3, heartbeat_timeout_ms: 60_000 },
  index_results: true,
});

/** The job stand-ins: `total` batches of locations (or companies), then the job's end event. */
function jobStandIns(
  jobId: string,
  type: 'maps-scrape' | 'research',
  opts: { total: number; fail?: boolean; fed?: boolean },
) {
  const acts: Partial<Activities> = {
    startMapsJob: async () => ({ proceed: true, total: opts.total, event: jobEvent(jobId, 'job.started', type) }),
    startResearchJob: async () => ({ proceed: true, total: opts.total, event: jobEvent(jobId, 'job.started', type) }),
    scrapeLocations: async (input) => {
      if (opts.fail) throw ApplicationFailure.nonRetryable('maps provider: request rejected (403)', 'ProviderRefused');
      // `indexed`: whether the activity's index feed took everything it stored (then the job needs no follow-up).
      return { results_count: (input.count ?? 0) + 4, next: input.to, indexed: opts.fed ?? false };
    },
    researchCompany: async () => ({ found: true }),
    finishJob: async (input) =>
      jobEvent(jobId, input.status === 'completed' ? 'job.completed' : 'job.failed', type, {
        status: input.status,
        results_count: input.results_count ?? 0,
      }),
    deliverJobWebhook: async () => ({ status: 200 }),
    indexJobResults: async () => ({ indexed: 12 }),
  };
  return acts;
}

/**
 * The job's own history and those of the children it started (its webhooks and, unless its feeds indexed everything
 * it stored, its follow-up index workflow).
 */
const jobHistories = (prefix: string, jobId: string, events: JobEventName[], followUp = true) => ({
  [prefix]: jobId,
  ...Object.fromEntries(events.map((e) => [`${prefix}-webhook-${e.slice(4)}`, jobWebhookWorkflowId(jobId, e)])),
  ...(followUp ? { [`${prefix}-index`]: jobIndexWorkflowId(jobId) } : {}),
});

const reservation = (now: number, id: string, callback: boolean): PinReservationInput => ({
  reservation_id: `res-${id}`,
  pin_id: `NL:${id.toUpperCase()}`,
  country_code: 'NL',
  name: id.toUpperCase(),
  client_id: CLIENT,
  brand_id: 7,
  callback_url: callback ? 'https://agent.example/pins' : null,
  expires_at_ms: now + 24 * HOUR,
  callback: { initial_ms: 5000, total_seconds: 24 * 3600 },
});

const pinStandIns: Partial<Activities> = {
  recordPinReservation: async () => ({ held: true }),
  writeClaimedPin: async () => ({ written: true, created_at: '2025-03-14T09:30:00.000Z' }),
  closePinReservation: async () => undefined,
  movePinReservationExpiry: async () => undefined,
  deliverPinCreated: async () => ({ status: 204 }),
};

/** A watch's run as its schedule starts one (the workflow id carries the scheduled time); answers its workflow id. */
async function runWatch({ client, taskQueue }: Recording, watchId: string): Promise<string> {
  const workflowId = `${watchRunWorkflowId(watchId)}-2025-03-17T06:00:00Z`;
  await client.workflow.execute(watchRunWorkflow, {
    taskQueue,
    workflowId,
    args: [{ watch_id: watchId, client_id: CLIENT }],
  });
  return workflowId;
}

/** A watch's run: its job (the maps-scrape stand-ins) on the recording's queue, then the new leads it saw. */
function watchRunStandIns(jobId: string, newLeads: number): Partial<Activities> {
  const params = { query: 'bakery', country_code: 'NL', max_locations: 3 };
  return {
    ...jobStandIns(jobId, 'maps-scrape', { total: 3 }),
    startWatchRun: async () => ({
      job: {
        type: 'maps-scrape',
        taskQueue: Context.current().info.taskQueue,
        memo: { client_id: CLIENT, job_type: 'maps-scrape' },
        input: { ...jobInput(jobId, 'maps-scrape'), params },
      },
    }),
    finishWatchRun: async (input) => ({
      status: 'completed',
      new_leads_count: newLeads,
      event: newLeads
        ? {
            id: '1700000000000-9',
            event: 'watch.new_leads',
            data: {
              ...jobEvent(jobId, 'job.completed', 'maps-scrape').data,
              status: 'completed',
              watch_id: input.watch_id,
              scheduled_at: input.scheduled_at,
              new_leads_count: newLeads,
              new_leads: ['idap://businesses/3b7f1d5a-9c2e-4a8b-8d6f-0e4c2a6b8d86'],
            },
          }
        : null,
    }),
  };
}

/** The signup page's completion of a reservation, as the scenarios send it. */
const completion = (reservationId: string) => ({
  reservation_id: reservationId,
  lat: 52.0907,
  lng: 5.1214,
  structured_address: { address_settlement: 'Utrecht' },
  account_oauth_uid: null,
  verified_identifier: '+31612345678',
});

export const SCENARIOS: Scenario[] = [
  {
    name: 'maps-scrape completed, with webhooks and the index feed',
    activities: jobStandIns('job-maps-completed', 'maps-scrape', { total: 14 }),
    async run({ client, taskQueue }) {
      const jobId = 'job-maps-completed';
      const input: MapsScrapeInput = {
        ...jobInput(jobId, 'maps-scrape'),
        params: { query: 'bakery', country_code: 'NL', max_locations: 14 },
      };
      await client.workflow.execute(mapsScrapeWorkflow, { taskQueue, workflowId: jobId, args: [input] });
      return jobHistories('maps-scrape-completed', jobId, ['job.queued', 'job.started', 'job.completed']);
    },
  },
  {
    name: 'maps-scrape completed, its index feeds having taken everything: no follow-up index workflow',
    activities: jobStandIns('job-maps-fed', 'maps-scrape', { total: 14, fed: true }),
    async run({ client, taskQueue }) {
      const jobId = 'job-maps-fed';
      const input: MapsScrapeInput = {
        ...jobInput(jobId, 'maps-scrape'),
        params: { query: 'bakery', country_code: 'NL', max_locations: 14 },
      };
      await client.workflow.execute(mapsScrapeWorkflow, { taskQueue, workflowId: jobId, args: [input] });
      return jobHistories('maps-scrape-fed', jobId, ['job.queued', 'job.started', 'job.completed'], false);
    },
  },
  {
    name: 'maps-scrape failed by its provider',
    activities: jobStandIns('job-maps-failed', 'maps-scrape', { total: 3, fail: true }),
    async run({ client, taskQueue }) {
      const jobId = 'job-maps-failed';
      const input: MapsScrapeInput = {
        ...jobInput(jobId, 'maps-scrape'),
        params: { query: 'bakery', country_code: 'NL' },
      };
      await client.workflow.execute(mapsScrapeWorkflow, { taskQueue, workflowId: jobId, args: [input] }).catch(() => 0);
      return { 'maps-scrape-failed': jobId };
    },
  },
  {
    name: 'research paused for a day, resumed and completed',
    activities: jobStandIns('job-research', 'research', { total: 5 }),
    async run({ env, client, taskQueue }) {
      const jobId = 'job-research';
      const input: ResearchInput = { ...jobInput(jobId, 'research'), concurrency: 2 };
      const handle = await client.workflow.start(researchWorkflow, { taskQueue, workflowId: jobId, args: [input] });
      await handle.signal(pauseSignal, { seq: 1 });
      await env.sleep(24 * HOUR);
      await handle.signal(resumeSignal, { seq: 2 });
      await handle.result();
      return jobHistories('research-paused-resumed', jobId, ['job.queued', 'job.started', 'job.completed']);
    },
  },
  {
    name: 'research cancelled while paused',
    activities: jobStandIns('job-research-cancelled', 'research', { total: 3 }),
    async run({ env, client, taskQueue }) {
      const jobId = 'job-research-cancelled';
      const input: ResearchInput = { ...jobInput(jobId, 'research'), webhook_url: null, concurrency: 1 };
      const handle = await client.workflow.start(researchWorkflow, { taskQueue, workflowId: jobId, args: [input] });
      await handle.signal(pauseSignal, { seq: 1 });
      await env.sleep(2 * HOUR);
      await handle.cancel();
      await handle.result().catch(() => undefined);
      return { 'research-cancelled': jobId };
    },
  },
  {
    name: 'access request approved by an admin, its e-mails delivered',
    activities: {
      sendMessage: async () => undefined,
      decideAccessRequest: async (input) => ({
        request_id: input.request_id,
        status: input.verdict,
        decided_at: '2025-03-14T09:30:00.000Z',
        token_id: input.token_id,
        brand_ids: [7],
        token_expires_at: null,
      }),
      expireAccessRequest: async () => undefined,
    },
    async run({ client, taskQueue }) {
      const input: AccessRequestInput = {
        request_id: 'req-approved',
        ttl_ms: 24 * HOUR,
        emails: [{ channel: 'email', to: 'ops@acme.test', subject: 'Access requested', text: 'Approve: https://x' }],
      };
      const workflowId = accessRequestWorkflowId(input.request_id);
      const handle = await client.workflow.start(accessRequestWorkflow, { taskQueue, workflowId, args: [input] });
      const approver = { email: 'ops@acme.test', role: 'client_admin', user_id: null } as const;
      await handle.executeUpdate(decideUpdate, { args: ['approved', approver] });
      await handle.result();
      return { 'access-request-approved': workflowId, 'message-access-request': `${workflowId}-email-0` };
    },
  },
  {
    name: 'access request expired after 24 hours',
    activities: { sendMessage: async () => undefined, expireAccessRequest: async () => undefined },
    async run({ client, taskQueue }) {
      const input: AccessRequestInput = { request_id: 'req-expired', ttl_ms: 24 * HOUR, emails: [] };
      const workflowId = accessRequestWorkflowId(input.request_id);
      await client.workflow.execute(accessRequestWorkflow, { taskQueue, workflowId, args: [input] });
      return { 'access-request-expired': workflowId };
    },
  },
  {
    name: 'pin reservation completed by the end user, pin_created delivered',
    activities: pinStandIns,
    async run({ env, client, taskQueue }) {
      const input = reservation(await env.currentTimeMs(), 'de-zon', true);
      const workflowId = pinReservationWorkflowId(input.pin_id);
      const handle = await client.workflow.start(pinReservationWorkflow, { taskQueue, workflowId, args: [input] });
      await env.sleep(HOUR);
      await handle.executeUpdate(completeUpdate, { args: [completion(input.reservation_id)] });
      await handle.result();
      const callback = pinCreatedWorkflowId(input.reservation_id);
      await client.workflow.getHandle(callback).result();
      return { 'pin-reservation-completed': workflowId, 'pin-created-callback': callback };
    },
  },
  {
    name: 'pin reservation held with its record (update-with-start), then completed',
    activities: pinStandIns,
    async run({ env, client, taskQueue }) {
      const input: PinReservationInput = {
        ...reservation(await env.currentTimeMs(), 'recorded', true),
        record: { channel: 'sms', identifier: '+31612345678', callback_secret_sealed: 'sealed-secret' },
      };
      const workflowId = pinReservationWorkflowId(input.pin_id);
      const startWorkflowOperation = new WithStartWorkflowOperation(pinReservationWorkflow, {
        taskQueue,
        workflowId,
        args: [input],
        workflowIdConflictPolicy: 'FAIL',
      });
      await client.workflow.executeUpdateWithStart(reserveUpdate, { startWorkflowOperation });
      const handle = await startWorkflowOperation.workflowHandle();
      await env.sleep(HOUR);
      await handle.executeUpdate(completeUpdate, { args: [completion(input.reservation_id)] });
      await handle.result();
      return { 'pin-reservation-recorded-completed': workflowId };
    },
  },
  {
    name: 'pin reservation extended, then expired',
    activities: pinStandIns,
    async run({ env, client, taskQueue }) {
      const input = reservation(await env.currentTimeMs(), 'extended', false);
      const workflowId = pinReservationWorkflowId(input.pin_id);
      const handle = await client.workflow.start(pinReservationWorkflow, { taskQueue, workflowId, args: [input] });
      await env.sleep(23 * HOUR);
      await handle.executeUpdate(extendHoldUpdate, { args: [input.expires_at_ms + 24 * HOUR] });
      await handle.result();
      return { 'pin-reservation-extended-expired': workflowId };
    },
  },
  {
    name: 'pin reservation released (its signup link could not be sent)',
    activities: pinStandIns,
    async run({ env, client, taskQueue }) {
      const input = reservation(await env.currentTimeMs(), 'released', false);
      const workflowId = pinReservationWorkflowId(input.pin_id);
      const handle = await client.workflow.start(pinReservationWorkflow, { taskQueue, workflowId, args: [input] });
      await handle.signal(releaseSignal, input.reservation_id);
      await handle.result();
      return { 'pin-reservation-released': workflowId };
    },
  },
  {
    name: 'deploy hook called after a busy answer',
    activities: {
      callDeployHook: failsOnce('deploy hook answered 503', { status: 200 }),
    },
    async run({ client, taskQueue }) {
      const workflowId = 'content-deploy-post-p1-r1';
      await client.workflow.execute(contentDeployHookWorkflow, {
        taskQueue,
        workflowId,
        args: [
          {
            url: 'https://builder.example/hook',
            delivery_id: workflowId,
            payload: {
              event: 'content.published',
              type: 'post',
              id: 'p1',
              slug: 'hello',
              client_id: CLIENT,
              revision: 1,
              published_at: '2025-03-14T09:30:00.000Z',
            },
          },
        ],
      });
      return { 'content-deploy-hook': workflowId };
    },
  },
  {
    name: 'digest tick sending one client its digest',
    activities: {
      dueDigests: async () => [{ client_id: CLIENT, cadence: 'daily', period: '2025-03-14' }],
      prepareDigest: async () => [
        { id: 'digest-msg-1', channel: 'email', to: 'ops@acme.test', subject: 'Your digest', text: 'Shifts: 3' },
      ],
      markDigestSent: async () => undefined,
      sendMessage: async () => undefined,
    },
    async run({ client, taskQueue }) {
      const workflowId = 'digest-tick-lead-service-run-2025-03-14T09:00:00Z';
      await client.workflow.execute(digestTickWorkflow, { taskQueue, workflowId });
      return { 'digest-tick': workflowId, 'message-digest': 'message-digest-msg-1' };
    },
  },
  {
    name: 'billing sync of one key',
    activities: {
      pullBillingReport: async () => [{ day: '2025-03-13', amount: 1.25 }],
      reconcileBilling: async () => ({ days: 1, adjustment: 0.05 }),
    },
    async run({ client, taskQueue }) {
      const workflowId = 'billing-sync-42';
      await client.workflow.execute(integrationBillingSyncWorkflow, {
        taskQueue,
        workflowId,
        args: [{ client_id: CLIENT, integration_id: 42 }],
      });
      return { 'integration-billing-sync': workflowId };
    },
  },
  {
    name: 'search index re-ranked, retried after its worker stopped',
    activities: {
      rerankSearchIndex: failsOnce('re-rank attempt ended by its worker stopping', { resources: 1200 }),
    },
    async run({ client, taskQueue }) {
      const workflowId = rerankWorkflowId(CLIENT, 'businesses');
      await client.workflow.execute(idapRerankWorkflow, {
        taskQueue,
        workflowId,
        args: [{ client_id: CLIENT, resource_type: 'businesses' }],
      });
      return { 'idap-rerank': workflowId };
    },
  },
  {
    name: "watch run: its job as a child, then one new lead announced to the watch's webhook",
    activities: watchRunStandIns('job-watch-run', 1),
    run: async (rec) => ({ 'watch-run-new-leads': await runWatch(rec, 'w1') }),
  },
  {
    name: 'watch run of a deleted watch: nothing to do',
    activities: { startWatchRun: async () => ({ job: null, reason: 'the watch was deleted' }) },
    run: async (rec) => ({ 'watch-run-skipped': await runWatch(rec, 'w2') }),
  },
  {
    name: 'daily retention purge',
    activities: {
      purgeExpired: async () => ({
        outbox_messages: 3,
        sessions: 2,
        activity_events: 40,
        relay_usage: 0,
        job_items: 12,
      }),
    },
    async run({ client, taskQueue }) {
      const workflowId = 'retention-purge-lead-service-run-2025-03-14T00:00:00Z';
      await client.workflow.execute(retentionPurgeWorkflow, { taskQueue, workflowId });
      return { 'retention-purge': workflowId };
    },
  },
];
