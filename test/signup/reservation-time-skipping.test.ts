import type { Activities } from '../../activities';
import { HOUR, useTimeSkipping } from '../support/time-skipping';
import { pinReservationWorkflow } from '../../workflows/pin-reservation';
import {
  completeUpdate,
  extendHoldUpdate,
  pinReservationWorkflowId,
  type PinClaim,
  type PinReservationInput,
} from '../../workflows/pin-reservation-api';

/**
 * The reservation workflow on Temporal's time-skipping test server, with its real 24-hour hold; the
 * activities are stand-ins, typed from the real ones, that record what was asked. (pin_created's delivery and retries are tested
 * against a local receiver on the dev server, claim.test.ts.)
 */
describe('the pin reservation, with its 24-hour hold skipped through', () => {
  const ts = useTimeSkipping();

  function recorder() {
    const calls = { closed: 0, moved: [] as number[], written: 0 };
    const activities: Pick<Activities, 'closePinReservation' | 'movePinReservationExpiry' | 'writeClaimedPin'> = {
      async closePinReservation() {
        calls.closed += 1;
      },
      async movePinReservationExpiry(input) {
        calls.moved.push(input.expires_at_ms);
      },
      async writeClaimedPin() {
        calls.written += 1;
        return { written: true, created_at: new Date().toISOString() };
      },
    };
    return { calls, activities };
  }

  let n = 0;
  async function reserve(taskQueue: string) {
    const name = `HOLD-${++n}`;
    const input: PinReservationInput = {
      reservation_id: `res-${n}-${Date.now()}`,
      pin_id: `NL:${name}`,
      country_code: 'NL',
      name,
      client_id: 'c1',
      brand_id: 1,
      callback_url: null,
      expires_at_ms: (await ts.env.currentTimeMs()) + 24 * HOUR,
      callback: { initial_ms: 1000, total_seconds: 24 * 3600 },
    };
    const handle = await ts.env.client.workflow.start(pinReservationWorkflow, {
      taskQueue,
      workflowId: pinReservationWorkflowId(`${input.pin_id}-${input.reservation_id}`),
      args: [input],
    });
    return { handle, input };
  }

  const claimOf = (input: PinReservationInput): PinClaim => ({
    reservation_id: input.reservation_id,
    lat: 52.09,
    lng: 5.12,
    structured_address: { address_settlement: 'Utrecht' },
    account_oauth_uid: null,
    verified_identifier: null,
  });
  const hours = (run: { startTime: Date; closeTime?: Date }) =>
    (run.closeTime!.getTime() - run.startTime.getTime()) / HOUR;

  it('an unclaimed hold ends after 24 hours and releases the name', async () => {
    const { calls, activities } = recorder();
    const { worker, taskQueue } = await ts.worker(activities);
    const { outcome, run } = await worker.runUntil(async () => {
      const { handle } = await reserve(taskQueue);
      return { outcome: await handle.result(), run: await handle.describe() };
    });
    expect(outcome).toBe('expired');
    expect(hours(run)).toBeGreaterThan(23.99); // the deadline was set a moment before the run started
    expect(hours(run)).toBeLessThan(24.02);
    expect(calls).toMatchObject({ closed: 1, written: 0 });
  });

  it('extendHold 23 hours in moves the timer: still held at 25 hours, released at the new 48 h', async () => {
    const { calls, activities } = recorder();
    const { worker, taskQueue } = await ts.worker(activities);
    const seen = await worker.runUntil(async () => {
      const { handle, input } = await reserve(taskQueue);
      await ts.env.sleep(23 * HOUR);
      const until = input.expires_at_ms + 24 * HOUR;
      await handle.executeUpdate(extendHoldUpdate, { args: [until] });
      await ts.env.sleep(2 * HOUR);
      const at25 = (await handle.describe()).status.name;
      return { until, at25, outcome: await handle.result(), run: await handle.describe() };
    });
    expect(seen.at25).toBe('RUNNING');
    expect(seen.outcome).toBe('expired');
    expect(hours(seen.run)).toBeGreaterThan(47.99);
    expect(hours(seen.run)).toBeLessThan(48.02);
    expect(calls.moved).toEqual([seen.until]);
  });

  it('completion racing the expiry: a second before the deadline writes the pin, after is refused', async () => {
    for (const [offset, expected] of [
      [-1000, 'completed'],
      [1000, 'expired'],
    ] as const) {
      const { calls, activities } = recorder();
      const { worker, taskQueue } = await ts.worker(activities);
      const seen = await worker.runUntil(async () => {
        const { handle, input } = await reserve(taskQueue);
        await ts.env.sleep(24 * HOUR + offset);
        const answer = await handle.executeUpdate(completeUpdate, { args: [claimOf(input)] }).then(
          () => 'accepted',
          () => 'refused',
        );
        return { answer, outcome: await handle.result() };
      });
      expect({ offset, ...seen, written: calls.written }).toEqual(
        expected === 'completed'
          ? { offset, answer: 'accepted', outcome: 'completed', written: 1 }
          : { offset, answer: 'refused', outcome: 'expired', written: 0 },
      );
    }
  });
});
