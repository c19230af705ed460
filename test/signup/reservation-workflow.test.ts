import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, useTestApi } from '../support/harness';
import { PinModel } from '../../src/pins/pin.model';
import { ReservationModel } from '../../src/pins/reservation.model';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { pinReservationWorkflow } from '../../workflows/pin-reservation';
import {
  completeUpdate,
  extendHoldUpdate,
  pinReservationWorkflowId,
  reserveUpdate,
  type PinReservationInput,
} from '../../workflows/pin-reservation-api';
import { brandCaller, completeSignup, confirmPin, freshPhone, reserve, type BrandCaller } from './signup-helpers';

// Long enough that a reservation answered on a loaded machine is still held when the test completes it.
const TTL_SECONDS = 6;

/**
 * The hold's timer on the dev server with a short TTL (PIN_RESERVATION_TTL_SECONDS=6): Temporal's
 * time-skipping test server needs a download that is not possible offline here.
 */
describe('the reservation workflow: expiry, extension, completion racing expiry', () => {
  const ctx = useTestApi({ PIN_RESERVATION_TTL_SECONDS: String(TTL_SECONDS), PIN_COMPLETE_WAIT_MS: '5000' });
  let agent: BrandCaller;
  beforeAll(async () => {
    agent = await brandCaller(ctx.api, ctx.admin, 'Timers');
  });

  it('an unclaimed hold expires: the name is freed, the link stops working, it can be reserved again', async () => {
    const r = await reserve(ctx.api, ctx.admin, agent, 'LAPSING');
    expect((await ctx.api.call('GET', `/api/v1/signup/resolve?token=${encodeURIComponent(r.token)}`)).status).toBe(200);
    await eventually(
      async () => ((await ReservationModel.findById('NL:LAPSING').lean())?.state === 'expired' ? true : undefined),
      20_000,
    );
    const handle = ctx.api.rt.engines.temporal.workflow.getHandle(pinReservationWorkflowId('NL:LAPSING'));
    expect(await handle.result()).toBe('expired');
    expect((await ctx.api.call('GET', `/api/v1/signup/resolve?token=${encodeURIComponent(r.token)}`)).status).toBe(401);
    expect((await completeSignup(ctx.api, r.token, 'LAPSING')).status).toBe(401);
    expect(await PinModel.exists({ _id: 'NL:LAPSING' })).toBeNull();
    // A closed reservation does not block a new one under the same workflow id.
    const again = await confirmPin(ctx.api, agent, { name: 'LAPSING', identifier: freshPhone() });
    expect(again.status).toBe(202);
    expect(again.body.reservation_id).not.toBe(r.reservation_id);
  });

  /** A reservation's input with its record, as confirm-pin's update-with-start sends it. */
  const recordedHold = (prefix: string, pinId: string): PinReservationInput => ({
    reservation_id: `${prefix}-${Date.now()}`,
    pin_id: pinId,
    country_code: 'NL',
    name: pinId.split(':')[1],
    client_id: agent.client.client_id,
    brand_id: agent.brandId,
    callback_url: null,
    expires_at_ms: Date.now() + TTL_SECONDS * 1000,
    callback: { initial_ms: 1000, total_seconds: 60 },
    record: { channel: 'sms', identifier: freshPhone(), callback_secret_sealed: null },
  });

  it('a hold whose API died right after starting it: its run records it, holds the name, then frees it', async () => {
    const pinId = 'NL:ORPHANED';
    const input = recordedHold('res-orphaned', pinId);
    // As if confirm-pin's update-with-start had reached Temporal and the API had died at once: no answer awaited,
    // nothing written by the API, no link sent. (Nothing of the Update is needed: the run records itself.)
    const handle = await ctx.api.rt.engines.temporal.workflow.start(pinReservationWorkflow, {
      taskQueue: ctx.api.config.TEMPORAL_TASK_QUEUE,
      workflowId: pinReservationWorkflowId(pinId),
      args: [input],
    });
    const held = await eventually(async () => (await ReservationModel.findById(pinId).lean()) ?? undefined);
    expect(held).toMatchObject({ reservation_id: input.reservation_id, state: 'held', channel: 'sms' });
    expect(held.expires_at.getTime()).toBe(input.expires_at_ms);
    const taken = await confirmPin(ctx.api, agent, { name: 'ORPHANED', identifier: freshPhone() });
    expect([taken.status, taken.body.detail]).toEqual([404, 'name_not_available']);
    // The hold ends as every unclaimed one does, and its record says so.
    expect(await handle.result()).toBe('expired');
    expect((await ReservationModel.findById(pinId).lean())!.state).toBe('expired');
    expect((await confirmPin(ctx.api, agent, { name: 'ORPHANED', identifier: freshPhone() })).status).toBe(202);
  });

  it('a run finding a pin under its name (a race with an earlier claim) records nothing, holds nothing', async () => {
    const pinId = 'NL:CLAIMED-BEFORE';
    await PinModel.create({
      _id: pinId,
      country_code: 'NL',
      name: 'CLAIMED-BEFORE',
      client_id: agent.client.client_id,
      brand_id: agent.brandId,
      reservation_id: 'res-earlier',
      gps: { lat: 52, lng: 5 },
      subscription: { status: 'active', expires_at: new Date(Date.now() + 86_400_000) },
    });
    const input = recordedHold('res-late', pinId);
    const startWorkflowOperation = new WithStartWorkflowOperation(pinReservationWorkflow, {
      taskQueue: ctx.api.config.TEMPORAL_TASK_QUEUE,
      workflowId: pinReservationWorkflowId(pinId),
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
    });
    const temporal = ctx.api.rt.engines.temporal;
    await expect(temporal.workflow.executeUpdateWithStart(reserveUpdate, { startWorkflowOperation })).rejects.toThrow(
      /update failed/i,
    );
    expect(await (await startWorkflowOperation.workflowHandle()).result()).toBe('released');
    expect(await ReservationModel.exists({ _id: pinId })).toBeNull();
  });

  it('extendHold moves the timer: the hold outlives its first deadline and can still be completed', async () => {
    const r = await reserve(ctx.api, ctx.admin, agent, 'EXTENDED');
    const handle = ctx.api.rt.engines.temporal.workflow.getHandle(pinReservationWorkflowId('NL:EXTENDED'));
    const until = Date.now() + 30_000;
    const moved = await handle.executeUpdate(extendHoldUpdate, { args: [until] });
    expect(new Date(moved.expires_at).getTime()).toBe(until);
    expect((await ReservationModel.findById('NL:EXTENDED').lean())!.expires_at.getTime()).toBe(until);
    // Time is the subject: past the hold's first deadline (and the timer it set), which extendHold moved.
    await sleep(Date.parse(r.expires_at) - Date.now() + 1500);
    expect((await ReservationModel.findById('NL:EXTENDED').lean())!.state).toBe('held');
    // The token carries the first expiry (it is past); the hold itself is what extendHold moved.
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.executeUpdate(completeUpdate, {
      args: [
        {
          reservation_id: r.reservation_id,
          lat: 1,
          lng: 2,
          structured_address: { address_settlement: 'Utrecht' },
          account_oauth_uid: null,
          verified_identifier: null,
        },
      ],
    });
    expect(await handle.result()).toBe('completed');
    expect(await PinModel.exists({ _id: 'NL:EXTENDED' })).not.toBeNull();
    // A deadline in the past is refused.
    await reserve(ctx.api, ctx.admin, agent, 'EXTEND-PAST');
    await expect(
      ctx.api.rt.engines.temporal.workflow
        .getHandle(pinReservationWorkflowId('NL:EXTEND-PAST'))
        .executeUpdate(extendHoldUpdate, { args: [Date.now() - 1000] }),
    ).rejects.toThrow(/update failed/i);
  });

  it('completions racing the expiry: for every name exactly one of them wins, and the answer says which', async () => {
    const names = ['RACE-A', 'RACE-B', 'RACE-C', 'RACE-D', 'RACE-E', 'RACE-F'];
    const held = await Promise.all(names.map((n) => reserve(ctx.api, ctx.admin, agent, n)));
    // Completions spread across the deadline: the first two at once (well before it), the others from
    // just before it to after it.
    const answers = await Promise.all(
      held.map(async (r, i) => {
        const at = i < 2 ? 0 : new Date(r.expires_at).getTime() + (i - 3) * 300;
        await sleep(Math.max(0, at - Date.now()));
        return completeSignup(ctx.api, r.token, names[i]);
      }),
    );
    for (const [i, name] of names.entries()) {
      const handle = ctx.api.rt.engines.temporal.workflow.getHandle(pinReservationWorkflowId(`NL:${name}`));
      const outcome = await handle.result();
      const pin = await PinModel.exists({ _id: `NL:${name}` });
      const state = (await ReservationModel.findById(`NL:${name}`).lean())!.state;
      const seen = { name, status: answers[i].status, outcome, pin: pin !== null, state };
      if (answers[i].status === 202)
        expect(seen).toEqual({ name, status: 202, outcome: 'completed', pin: true, state: 'completed' });
      else expect(seen).toEqual({ name, status: 401, outcome: 'expired', pin: false, state: 'expired' });
    }
    // The spread reaches both sides of the deadline.
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([202, 401]));
  });
});
