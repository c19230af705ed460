import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { OutboxMessageModel } from '../../src/notifications/outbox.model';
import { outboxDriver } from '../../src/notifications/channels';
import { createNotificationActivities } from '../../activities/notifications';
import { createDigestActivities } from '../../activities/digests';
import { createLocks } from '../../src/lib/locks';
import { digestSchedule } from '../../src/activity/activity.workflows';
import { scheduleIdOf } from '../../src/lib/engines/schedules';
import { digestTickWorkflow } from '../../workflows/digests';
import { digestPeriod } from '../../src/activity/digest-timing';
import { DigestSettingsModel } from '../../src/activity/digest-settings.model';
import { createClient, eventually, useTestApi } from '../support/harness';
import { seedEvents, userActor } from './activity-helpers';

const ctx = useTestApi();
const digestsOf = (clientId: string) =>
  OutboxMessageModel.find({ _id: new RegExp(`^digest-${clientId}-`) })
    .sort({ to: 1 })
    .lean();
const settings = (token: string, body?: unknown) =>
  ctx.api.call(body ? 'PATCH' : 'GET', '/api/v1/digest-settings', { token, body });
const runTick = () =>
  ctx.api.rt.engines.temporal.workflow.execute(digestTickWorkflow, {
    taskQueue: ctx.api.config.TEMPORAL_TASK_QUEUE,
    workflowId: `tick-${randomUUID()}`,
  });

async function dailyClient(name: string) {
  const client = await createClient(ctx.api, ctx.admin, name);
  expect((await settings(client.triple, { cadence: 'daily' })).status).toBe(200);
  return client;
}

describe('digest settings', () => {
  it('starts off, and a changed cadence resets last_sent_at so the next hourly tick sends', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Settings');
    expect((await settings(acme.triple)).body).toMatchObject({ cadence: 'off', last_sent_at: null, next_due_at: null });
    await DigestSettingsModel.updateOne(
      { _id: acme.client_id, client_id: acme.client_id },
      { $set: { cadence: 'weekly', last_sent_at: new Date(), updated_at: new Date() } },
      { upsert: true },
    );
    const sentThisWeek = (await settings(acme.triple)).body;
    expect(sentThisWeek.last_sent_at).not.toBeNull();
    expect(new Date(sentThisWeek.next_due_at).getUTCDay()).toBe(1); // the next Monday 06:00
    const changed = await settings(acme.triple, { cadence: 'daily' });
    expect(changed.status).toBe(200);
    const nextHour = new Date(Math.ceil((Date.now() + 1) / 3600_000) * 3600_000).toISOString();
    expect(changed.body).toMatchObject({ cadence: 'daily', last_sent_at: null, next_due_at: nextHour });
    const same = await settings(acme.triple, { cadence: 'daily' });
    expect(same.body.updated_at).toBe(changed.body.updated_at);
    expect((await settings(acme.triple, { cadence: 'off' })).body).toMatchObject({ cadence: 'off', next_due_at: null });
    expect(
      (await ctx.api.call('PATCH', '/api/v1/digest-settings', { token: ctx.admin, body: { cadence: 'daily' } })).status,
    ).toBe(422);
  });
});

describe('the digest schedule', () => {
  it('sends a due digest (HTML and text) to the admin and brand admins once a period as it ticks', async () => {
    const acme = await dailyClient('Acme Digest');
    const user = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: {
        email: 'boss@acme-digest.test',
        role: 'brand_admin',
        client_id: acme.client_id,
        password: 'boss-password-123',
      },
    });
    expect(user.status).toBe(201);
    const period = digestPeriod('daily', new Date());
    const worker = userActor(randomUUID(), 'ada@acme-digest.test');
    await seedEvents(acme.client_id, worker, [new Date(period.start.getTime() + 3600_000)]);
    await seedEvents(acme.client_id, worker, [new Date(period.start.getTime() + 3600_000 + 60_000)], {
      shipped: 'posts_published',
      label: 'Spring <hours>',
    });

    await ctx.api.rt.engines.temporal.schedule
      .getHandle(scheduleIdOf(digestSchedule, ctx.api.config.TEMPORAL_TASK_QUEUE))
      .trigger();
    const sent = await eventually(async () => {
      const found = await digestsOf(acme.client_id);
      return found.length === 2 ? found : undefined;
    }, 60_000);
    expect(sent.map((m) => m.to)).toEqual(['admin@acmedigest.test', 'boss@acme-digest.test']);
    expect(sent[0].subject).toBe(`Activity digest: Acme Digest (${period.key})`);
    expect(sent[0].text).toContain('ada@acme-digest.test (client_user)');
    expect(sent[0].text).toContain('Posts published: 1');
    expect(sent[0].html).toContain('<li>Spring &lt;hours&gt;</li>');
    const after = await eventually(async () =>
      (await settings(acme.triple)).body.last_sent_at ? (await settings(acme.triple)).body : undefined,
    );
    expect(new Date(after.next_due_at).getTime()).toBe(period.end.getTime() + 24 * 3600_000);

    // Another tick, and a cadence change back and forth (which resets last_sent_at): the period was sent.
    await runTick();
    expect((await settings(acme.triple, { cadence: 'weekly' })).status).toBe(200);
    expect((await settings(acme.triple, { cadence: 'daily' })).body.last_sent_at).toBeNull();
    await runTick();
    expect(await digestsOf(acme.client_id)).toHaveLength(2);
    expect((await settings(acme.triple)).body.last_sent_at).not.toBeNull();
  }, 120_000);

  it('sends once when two ticks overlap', async () => {
    const globex = await dailyClient('Globex Overlap');
    await Promise.all([runTick(), runTick(), runTick()]);
    expect(await digestsOf(globex.client_id)).toHaveLength(1);
  }, 120_000);

  it('sends once when its activities are retried after doing their work', async () => {
    const initech = await dailyClient('Initech Retry');
    const real = createDigestActivities({ digests: { lock: createLocks(ctx.api.rt.engines.redis).run } });
    const calls = { prepareDigest: 0, markDigestSent: 0 };
    // Each does its work, then fails once as if the worker died before reporting: Temporal retries it.
    const crashOnce =
      <A extends unknown[], R>(name: keyof typeof calls, fn: (...a: A) => Promise<R>) =>
      async (...a: A) => {
        const result = await fn(...a);
        if (++calls[name] === 1) throw new Error(`${name}: lost after doing its work`);
        return result;
      };
    const taskQueue = `digest-retry-${randomUUID()}`;
    const connection = await NativeConnection.connect({ address: ctx.api.rt.temporalAddress });
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      dataConverter: { payloadCodecs: [ctx.api.rt.payloadCodec] },
      activities: {
        ...createNotificationActivities({ channels: { email: outboxDriver, sms: outboxDriver } }),
        dueDigests: async () => (await real.dueDigests()).filter((d) => d.client_id === initech.client_id),
        prepareDigest: crashOnce('prepareDigest', real.prepareDigest),
        markDigestSent: crashOnce('markDigestSent', real.markDigestSent),
      } satisfies Partial<Activities>,
    });
    try {
      await worker.runUntil(async () => {
        const first = await ctx.api.rt.engines.temporal.workflow.execute(digestTickWorkflow, {
          taskQueue,
          workflowId: `tick-${randomUUID()}`,
        });
        expect(first).toEqual({ due: 1, sent: 1 });
        await eventually(async () => ((await digestsOf(initech.client_id)).length ? true : undefined), 30_000);
      });
    } finally {
      await connection.close();
    }
    expect(calls).toEqual({ prepareDigest: 2, markDigestSent: 2 });
    expect(await digestsOf(initech.client_id)).toHaveLength(1);
  }, 120_000);
});
