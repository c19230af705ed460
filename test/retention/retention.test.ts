import { randomUUID } from 'node:crypto';
import { ActivityEventModel } from '../../src/activity/activity-event.model';
import { SessionModel } from '../../src/auth/session.model';
import { RelayUsageModel } from '../../src/integrations/integration.model';
import { JobItemModel, JobModel } from '../../src/jobs/job.model';
import { OutboxMessageModel } from '../../src/notifications/outbox.model';
import { scheduleIdOf } from '../../src/lib/engines/schedules';
import { retentionSchedule } from '../../src/retention/retention.workflows';
import { retentionPurgeWorkflow } from '../../workflows/retention';
import { eventually } from '../support/eventually';
import { useTestApi } from '../support/harness';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

// Relay usage kept 40 days here (the default is 400), so that one record is past it and one is not.
const ctx = useTestApi({ RETENTION_RELAY_USAGE_DAYS: '40' });

/** Records of every kind the purge looks at, one past its lifetime and one within it; answers their ids. */
async function recordsOfEveryKind(clientId: string) {
  const old = { id: randomUUID(), at: ago(500) };
  const fresh = { id: randomUUID(), at: ago(1) };
  const message = (m: { id: string; at: Date }) => ({
    _id: m.id,
    channel: 'sms',
    to: '+31600000000',
    text: 'x',
    created_at: m.at,
  });
  await OutboxMessageModel.collection.insertMany([message(old), message(fresh)] as never[]);
  await SessionModel.collection.insertMany([
    { _id: old.id, token_hash: `h-${old.id}`, user_id: 'u1', expires_at: ago(40), revoked_at: null },
    { _id: fresh.id, token_hash: `h-${fresh.id}`, user_id: 'u1', expires_at: ago(5), revoked_at: null },
  ] as never[]);
  const event = (m: { id: string; at: Date }) => ({
    _id: m.id,
    client_id: clientId,
    actor_id: 'a',
    actor_kind: 'user',
    role: 'client_admin',
    action: 'login',
    at: m.at,
  });
  await ActivityEventModel.collection.insertMany([event(old), event(fresh)] as never[]);
  const usage = (id: string, at: Date) => ({
    _id: id,
    client_id: clientId,
    brand_id: 1,
    acting_brand_id: 1,
    integration_id: 1,
    provider_name: 'parcel-tracking',
    kind: 'call',
    day: at.toISOString().slice(0, 10),
    calls: 1,
    amount: 0.01,
    at,
  });
  await RelayUsageModel.collection.insertMany([usage(old.id, ago(41)), usage(fresh.id, ago(39))] as never[]);
  const job = (id: string, completedAt: Date | null, status: string) => ({
    _id: id,
    client_id: clientId,
    type: 'maps-scrape',
    status,
    params: {},
    completed_at: completedAt,
    created_at: ago(200),
  });
  await JobModel.collection.insertMany([
    job(old.id, ago(91), 'completed'),
    job(fresh.id, ago(89), 'failed'),
  ] as never[]);
  const running = randomUUID(); // unfinished, however old: its items stay
  await JobModel.collection.insertOne(job(running, null, 'processing') as never);
  const item = (jobId: string, seq: number) => ({
    _id: `${jobId}-${seq}`,
    client_id: clientId,
    job_id: jobId,
    kind: 'result',
    seq,
    found: true,
    data: {},
  });
  await JobItemModel.collection.insertMany([
    item(old.id, 1),
    item(old.id, 2),
    item(fresh.id, 1),
    item(running, 1),
  ] as never[]);
  return { old: old.id, fresh: fresh.id, running };
}

describe('retention', () => {
  it('purges daily what has outlived its lifetime, and keeps the rest', async () => {
    const { api } = ctx;
    const temporal = api.rt.engines.temporal;
    // Described once the server answers: on a loaded machine the development server's describe (a query of the
    // schedule's own workflow) can run past its deadline just after start (DEADLINE_EXCEEDED in a full run).
    const handle = temporal.schedule.getHandle(scheduleIdOf(retentionSchedule, api.config.TEMPORAL_TASK_QUEUE));
    const schedule = await eventually(() => handle.describe(), 60_000, 1000, 'the retention schedule described');
    expect(schedule.spec.intervals?.map((i) => i.every)).toEqual([DAY]);

    const ids = await recordsOfEveryKind('c-retention');
    const counts = await temporal.workflow.execute(retentionPurgeWorkflow, {
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      workflowId: `retention-${randomUUID()}`,
    });
    expect(counts).toEqual({ outbox_messages: 1, sessions: 1, activity_events: 1, relay_usage: 1, job_items: 2 });

    // What is left of this test's records (the API's own, such as the admin's session, are not counted).
    const mine = [ids.old, ids.fresh, `${ids.old}-1`, `${ids.old}-2`, `${ids.fresh}-1`, `${ids.running}-1`];
    const left = async (model: { collection: { find(q: object): { toArray(): Promise<{ _id: unknown }[]> } } }) =>
      (await model.collection.find({ _id: { $in: mine } }).toArray()).map((d) => String(d._id)).sort();
    expect(await left(OutboxMessageModel)).toEqual([ids.fresh]);
    expect(await left(SessionModel)).toEqual([ids.fresh]);
    expect(await left(ActivityEventModel)).toEqual([ids.fresh]);
    expect(await left(RelayUsageModel)).toEqual([ids.fresh]);
    expect(await left(JobItemModel)).toEqual([`${ids.fresh}-1`, `${ids.running}-1`].sort());
    expect(await JobModel.countDocuments({ client_id: 'c-retention' })).toBe(3); // the jobs themselves stay
  }, 120_000); // the schedule's describe may wait up to a minute (above)
});
