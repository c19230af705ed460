import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { Activities } from '../../activities';
import { pinCreatedCallbackWorkflow } from '../../workflows/pin-reservation';
import { jobWebhookWorkflow } from '../../workflows/jobs';
import { contentDeployHookWorkflow } from '../../workflows/content';
import { deliverMessageWorkflow } from '../../workflows/notifications';
import { digestTickWorkflow } from '../../workflows/digests';
import { integrationBillingSyncWorkflow } from '../../workflows/integration-billing';
import type { PinCreatedCallbackInput } from '../../workflows/pin-reservation-api';
import { HOUR, useTimeSkipping } from '../support/time-skipping';
import { messageWorkflowId } from '../../workflows/notifications';

const MINUTE = 60_000;

/**
 * The retry policies of every delivery and scheduled workflow, over the real time they span, on Temporal's
 * time-skipping test server with stand-in activities typed from the real ones: how long a receiver may be down
 * before a delivery gives up, and that each delivery happens once when the receiver comes back.
 */
describe('deliveries and scheduled work: retries over hours, on the time-skipping server', () => {
  const ts = useTimeSkipping({ perTest: true });
  let n = 0;
  const id = (what: string) => `${what}-${++n}-${Date.now()}`;

  /** A receiver that refuses (a 5xx, retryable) until `downForMs` of workflow time has passed since the first call. */
  function flakyReceiver(downForMs: number) {
    const seen = { calls: 0, deliveredAtMs: null as number | null, firstAtMs: null as number | null, lastAtMs: 0 };
    const attempt = async () => {
      const now = await ts.env.currentTimeMs();
      seen.firstAtMs ??= now;
      seen.lastAtMs = now;
      seen.calls += 1;
      if (now - seen.firstAtMs < downForMs) throw ApplicationFailure.retryable('receiver answered 503');
      seen.deliveredAtMs = now;
      return { status: 200 };
    };
    return { seen, attempt };
  }

  const callbackInput = (): PinCreatedCallbackInput => ({
    url: 'https://agent.example/callback',
    client_id: 'c1',
    retry: { initial_ms: 5_000, total_seconds: 24 * 3600 },
    notification: {
      event: 'pin_created',
      pin_id: 'NL:BAKERY',
      reservation_id: id('reservation'),
      name: 'BAKERY',
      country_code: 'NL',
      brand_id: 1,
      created_at: new Date().toISOString(),
    },
  });

  it('pin_created: a receiver down for 20 hours still gets it (once), retried at most 10 minutes apart', async () => {
    const receiver = flakyReceiver(20 * HOUR);
    const activities: Pick<Activities, 'deliverPinCreated'> = { deliverPinCreated: receiver.attempt };
    const { worker, taskQueue } = await ts.worker(activities);
    const result = await worker.runUntil(() =>
      ts.env.client.workflow.execute(pinCreatedCallbackWorkflow, {
        taskQueue,
        workflowId: id('cb'),
        args: [callbackInput()],
      }),
    );
    expect(result).toEqual({ status: 200 });
    const delivered = receiver.seen.deliveredAtMs! - receiver.seen.firstAtMs!;
    expect(delivered).toBeGreaterThanOrEqual(20 * HOUR);
    expect(delivered).toBeLessThan(20 * HOUR + 11 * MINUTE); // the next attempt after the receiver is back
    // 5 s doubling to the 10-minute cap: 8 attempts reach it, then one every 10 minutes for the rest.
    expect(receiver.seen.calls).toBeGreaterThan(110);
    expect(receiver.seen.calls).toBeLessThan(130);
  });

  it('pin_created: a receiver down for more than a day is given up on at 24 hours', async () => {
    const receiver = flakyReceiver(48 * HOUR);
    const activities: Pick<Activities, 'deliverPinCreated'> = { deliverPinCreated: receiver.attempt };
    const { worker, taskQueue } = await ts.worker(activities);
    const seen = await worker.runUntil(async () => {
      const handle = await ts.env.client.workflow.start(pinCreatedCallbackWorkflow, {
        taskQueue,
        workflowId: id('cb'),
        args: [callbackInput()],
      });
      const failure = await handle.result().then(
        () => null,
        (err: unknown) => err,
      );
      return { failure, run: await handle.describe() };
    });
    expect(seen.failure).toBeInstanceOf(WorkflowFailedError);
    const ran = seen.run.closeTime!.getTime() - seen.run.startTime.getTime();
    expect(ran).toBeGreaterThanOrEqual(24 * HOUR - 11 * MINUTE);
    expect(ran).toBeLessThanOrEqual(24 * HOUR + MINUTE);
    expect(receiver.seen.deliveredAtMs).toBeNull();
  });

  it('a job webhook is retried twenty times (about an hour and three quarters), then given up on', async () => {
    const receiver = flakyReceiver(48 * HOUR);
    const activities: Pick<Activities, 'deliverJobWebhook'> = { deliverJobWebhook: receiver.attempt };
    const { worker, taskQueue } = await ts.worker(activities);
    const failure = await worker.runUntil(() =>
      ts.env.client.workflow
        .execute(jobWebhookWorkflow, {
          taskQueue,
          workflowId: id('webhook'),
          args: [
            {
              url: 'https://client.example/hook',
              client_id: 'c1',
              event: {
                id: '1-0',
                event: 'job.completed',
                data: { job_id: 'j1', job_type: 'maps-scrape', status: 'completed' },
              },
            } as Parameters<typeof jobWebhookWorkflow>[0],
          ],
        })
        .then(
          () => null,
          (err: unknown) => err,
        ),
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(receiver.seen.calls).toBe(20);
    // 1 s doubling to the 10-minute cap (1,023 s over ten attempts), then nine more 10 minutes apart.
    const lastAttemptAfter = receiver.seen.lastAtMs - receiver.seen.firstAtMs!;
    expect(lastAttemptAfter).toBeGreaterThan(1.75 * HOUR);
    expect(lastAttemptAfter).toBeLessThan(1.85 * HOUR);
  });

  it('a deploy hook down for a few minutes is called again until it answers', async () => {
    const receiver = flakyReceiver(5 * MINUTE);
    const activities: Pick<Activities, 'callDeployHook'> = { callDeployHook: receiver.attempt };
    const { worker, taskQueue } = await ts.worker(activities);
    const result = await worker.runUntil(() =>
      ts.env.client.workflow.execute(contentDeployHookWorkflow, {
        taskQueue,
        workflowId: id('deploy'),
        args: [
          {
            url: 'https://builder.example/hook',
            delivery_id: 'content-deploy-post-p1-r1',
            payload: {
              event: 'content.published',
              type: 'post',
              id: 'p1',
              slug: 'p1',
              client_id: 'c1',
              revision: 1,
              published_at: new Date().toISOString(),
            },
          },
        ],
      }),
    );
    expect(result).toEqual({ status: 200 });
    expect(receiver.seen.deliveredAtMs! - receiver.seen.firstAtMs!).toBeLessThan(6 * MINUTE);
  });

  it('an e-mail whose provider is down for an hour is sent once it is back', async () => {
    const receiver = flakyReceiver(HOUR);
    const activities: Pick<Activities, 'sendMessage'> = {
      sendMessage: async () => void (await receiver.attempt()),
    };
    const { worker, taskQueue } = await ts.worker(activities);
    const result = await worker.runUntil(() =>
      ts.env.client.workflow.execute(deliverMessageWorkflow, {
        taskQueue,
        workflowId: id('message'),
        args: [{ id: 'm1', channel: 'email', to: 'ada@example.org', text: 'hello' }],
      }),
    );
    expect(result).toEqual({ delivered: true });
    expect(receiver.seen.deliveredAtMs! - receiver.seen.firstAtMs!).toBeLessThan(HOUR + 6 * MINUTE);
  });

  it('a digest tick whose store is briefly unavailable still sends each digest once', async () => {
    let prepared = 0;
    const sent: string[] = [];
    const sentId = id('digest');
    const activities: Pick<Activities, 'dueDigests' | 'prepareDigest' | 'markDigestSent' | 'sendMessage'> = {
      dueDigests: async () => [{ client_id: 'c1' }] as Awaited<ReturnType<Activities['dueDigests']>>,
      prepareDigest: async () => {
        if (++prepared < 3) throw ApplicationFailure.retryable('document engine unavailable');
        return [{ id: sentId, channel: 'email' as const, to: 'ops@acme.example', text: 'your week' }];
      },
      markDigestSent: async () => undefined,
      sendMessage: async (m) => void sent.push(m.to),
    };
    const { worker, taskQueue } = await ts.worker(activities);
    const result = await worker.runUntil(async () => {
      const tick = await ts.env.client.workflow.execute(digestTickWorkflow, { taskQueue, workflowId: id('tick') });
      // The delivery child runs on its own, after the tick: wait for it by its id.
      await ts.env.client.workflow.getHandle(messageWorkflowId(sentId)).result();
      return tick;
    });
    expect(result).toEqual({ due: 1, sent: 1 });
    expect(prepared).toBe(3);
    expect(sent).toEqual(['ops@acme.example']);
  });

  it('a billing sync whose provider fails ten times in a row fails, after about five minutes of retries', async () => {
    let pulls = 0;
    const activities: Pick<Activities, 'pullBillingReport' | 'reconcileBilling'> = {
      pullBillingReport: async () => {
        pulls += 1;
        throw ApplicationFailure.retryable('usage report unavailable (503)');
      },
      reconcileBilling: async () => ({ days: 0, adjustment: 0 }),
    };
    const { worker, taskQueue } = await ts.worker(activities);
    const seen = await worker.runUntil(async () => {
      const handle = await ts.env.client.workflow.start(integrationBillingSyncWorkflow, {
        taskQueue,
        workflowId: id('billing'),
        args: [{ client_id: 'c1', integration_id: 1 }],
      });
      const failure = await handle.result().then(
        () => null,
        (err: unknown) => err,
      );
      return { failure, run: await handle.describe() };
    });
    expect(seen.failure).toBeInstanceOf(WorkflowFailedError);
    expect(pulls).toBe(10);
    const ran = seen.run.closeTime!.getTime() - seen.run.startTime.getTime();
    // 2 s doubling to 1 minute: 2+4+8+16+32+60+60+60+60 s.
    expect(ran).toBeGreaterThanOrEqual(5 * MINUTE);
    expect(ran).toBeLessThan(6 * MINUTE);
  });
});
