import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import type { Activities } from '../../activities';
import { HOUR, useTimeSkipping } from '../support/time-skipping';
import { accessRequestWorkflow } from '../../workflows/access-requests';
import {
  accessRequestWorkflowId,
  INVALID_DECISION,
  decideUpdate,
  type AccessRequestInput,
  type Approver,
  type Verdict,
} from '../../workflows/access-request-api';

/**
 * The approval workflow on Temporal's time-skipping test server, with its real 24-hour deadline: the
 * activities are stand-ins, typed from the real ones, that record what the workflow asked for.
 */
describe('the access-request workflow, with its 24-hour deadline skipped through', () => {
  // A server per test: the refusal test leaves a request open, whose 24-hour timer would otherwise hold the
  // clock of a later test once another test's wait skipped time past it.
  const ts = useTimeSkipping({ perTest: true });

  function recorder() {
    const calls = { sent: [] as string[], decided: [] as Verdict[], expired: [] as string[], limits: [] as unknown[] };
    const activities: Pick<Activities, 'sendMessage' | 'decideAccessRequest' | 'expireAccessRequest'> = {
      async sendMessage(m) {
        calls.sent.push(m.to);
      },
      async decideAccessRequest(input) {
        calls.decided.push(input.verdict);
        calls.limits.push(input.limits);
        return {
          request_id: input.request_id,
          status: input.verdict,
          decided_at: new Date().toISOString(),
          token_id: input.token_id,
          brand_ids: [1],
          token_expires_at: null,
        };
      },
      async expireAccessRequest(requestId) {
        calls.expired.push(requestId);
      },
    };
    return { calls, activities };
  }

  async function startRequest(taskQueue: string, requestId = `r-${Math.random().toString(36).slice(2)}`) {
    const input: AccessRequestInput = {
      request_id: requestId,
      ttl_ms: 24 * HOUR,
      emails: [{ channel: 'email', to: 'admin@client.test', subject: 'Access request', text: 'approve or deny' }],
    };
    return ts.env.client.workflow.start(accessRequestWorkflow, {
      taskQueue,
      workflowId: accessRequestWorkflowId(requestId),
      args: [input],
    });
  }

  /**
   * An hour skipped: the request has sent its e-mail and waits at its deadline's timer, as it does when an admin
   * follows the link. The test server can leave an Update sent while the run's first workflow task is still open
   * unanswered (it held a CI run until the test's timeout), which the real server does not.
   */
  const untilWaitingForDecision = async (handle: WorkflowHandle) => {
    await ts.env.sleep(HOUR);
    expect((await handle.describe()).status.name).toBe('RUNNING');
  };

  const ADMIN: Approver = { email: 'admin@client.test', role: 'client_admin', user_id: null };
  const approve = (handle: WorkflowHandle, verdict: Verdict = 'approved') =>
    handle.executeUpdate(decideUpdate, { args: [verdict, ADMIN] }).then(
      () => 'accepted' as const,
      (err: unknown) => err,
    );

  it('sends the approval e-mail, waits 24 hours for a decision, then expires', async () => {
    const { calls, activities } = recorder();
    const { worker, taskQueue } = await ts.worker(activities);
    const { outcome, run } = await worker.runUntil(async () => {
      const handle = await startRequest(taskQueue, 'r-expires');
      return { outcome: await handle.result(), run: await handle.describe() };
    });
    const waited = run.closeTime!.getTime() - run.startTime.getTime();
    expect(outcome).toBe('expired');
    expect(waited).toBeGreaterThanOrEqual(24 * HOUR);
    expect(waited).toBeLessThan(24 * HOUR + 60_000);
    expect(calls).toEqual({ sent: ['admin@client.test'], decided: [], expired: ['r-expires'], limits: [] });
  });

  it('approval racing the expiry: a second before the deadline wins, a second after it is refused', async () => {
    for (const [offset, expected] of [
      [-1000, 'approved'],
      [1000, 'expired'],
    ] as const) {
      const { calls, activities } = recorder();
      const { worker, taskQueue } = await ts.worker(activities);
      const seen = await worker.runUntil(async () => {
        const handle = await startRequest(taskQueue);
        await ts.env.sleep(24 * HOUR + offset);
        const answer = await approve(handle);
        return { answer: answer === 'accepted' ? answer : 'refused', outcome: await handle.result() };
      });
      expect({ offset, ...seen, decided: calls.decided, expired: calls.expired.length }).toEqual(
        expected === 'approved'
          ? { offset, answer: 'accepted', outcome: 'approved', decided: ['approved'], expired: 0 }
          : { offset, answer: 'refused', outcome: 'expired', decided: [], expired: 1 },
      );
    }
  });

  it("carries the approver's limit changes to the activity that issues the token", async () => {
    const { calls, activities } = recorder();
    const { worker, taskQueue } = await ts.worker(activities);
    const limits = { rate_limit_rpm: 3, monthly_budget_usd: null };
    const { decided, outcome } = await worker.runUntil(async () => {
      const handle = await startRequest(taskQueue);
      await untilWaitingForDecision(handle);
      const answer = await handle.executeUpdate(decideUpdate, { args: ['approved', ADMIN, limits] });
      return { decided: answer, outcome: await handle.result() };
    });
    expect([decided.status, outcome]).toEqual(['approved', 'approved']);
    expect(calls.limits).toEqual([limits]);
  });

  it('refuses a decision that names no approver, or a brand_admin without a user id; the request stays open', async () => {
    const { calls, activities } = recorder();
    const { worker, taskQueue } = await ts.worker(activities);
    const refusals = await worker.runUntil(async () => {
      const handle = await startRequest(taskQueue);
      await untilWaitingForDecision(handle);
      const send = (args: unknown[]) =>
        handle.executeUpdate(decideUpdate, { args: args as [Verdict, Approver] }).then(
          () => 'accepted',
          (err: { cause?: { type?: string } }) => err.cause?.type,
        );
      const answers = [
        await send(['approved']),
        await send(['approved', null]),
        await send(['approved', { email: null, role: 'brand_admin', user_id: null }]),
        await send(['maybe', ADMIN]),
        // Limits out of their bounds, or that are not limits, are refused as well (the API checks them first).
        await send(['approved', ADMIN, { rate_limit_rpm: 0 }]),
        await send(['approved', ADMIN, { rate_limit_rpd: 2.5 }]),
        await send(['approved', ADMIN, { monthly_budget_usd: '5' }]),
        await send(['approved', ADMIN, { scopes: ['content:deploy'] }]),
      ];
      return { answers, open: (await handle.describe()).status.name };
    });
    expect(refusals).toEqual({ answers: Array(8).fill(INVALID_DECISION), open: 'RUNNING' });
    expect(calls.decided).toEqual([]);
  });

  // The API then answers 409 from the stored state; the simultaneous race runs on the dev server
  // (access-requests.test.ts).
  it('a decision 23 hours in is taken and ends the request; a later one finds it closed', async () => {
    const { calls, activities } = recorder();
    const { worker, taskQueue } = await ts.worker(activities);
    const { first, second, outcome } = await worker.runUntil(async () => {
      const handle = await startRequest(taskQueue);
      await ts.env.sleep(23 * HOUR);
      return {
        first: await approve(handle, 'denied'),
        second: await approve(handle, 'approved'),
        outcome: await handle.result(),
      };
    });
    expect(first).toBe('accepted');
    expect(second).toBeInstanceOf(WorkflowNotFoundError);
    expect(outcome).toBe('denied');
    expect(calls.decided).toEqual(['denied']);
  });
});
