import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  ALREADY_COMPLETING,
  NAME_TAKEN,
  PIN_NOT_WRITTEN,
  RESERVATION_CLOSED,
  WRONG_RESERVATION,
  completeUpdate,
  extendHoldUpdate,
  pinCreatedWorkflowId,
  releaseSignal,
  reserveUpdate,
  type PinClaim,
  type PinCreatedCallbackInput,
  type PinReservationInput,
  type ReservationOutcome,
} from './pin-reservation-api';

const { writeClaimedPin, closePinReservation, movePinReservationExpiry, recordPinReservation } =
  proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
  });

const refuse = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/**
 * A name held for the end user until `expires_at_ms`. The run first writes its reservation document (when its
 * starter hands it the record: every confirm-pin since the hold and its record became one step), and the `reserve`
 * Update sent with the start answers once that is done. Then an updatable timer (a condition with a timeout,
 * re-armed whenever `extendHold` moves the deadline). The hold ends in exactly one way, decided here in
 * the workflow's single thread: a completion accepted before the deadline fires, or the expiry (or a
 * release) before a completion arrives; whichever comes first closes the door on the other. A completed
 * hold writes the pin, hands the pin_created callback to a child workflow that outlives this one, and ends.
 */
export async function pinReservationWorkflow(input: PinReservationInput): Promise<ReservationOutcome> {
  let deadline = input.expires_at_ms;
  let outcome: 'completing' | 'expired' | 'released' | null = null;
  let claim: PinClaim | null = null;
  let written: { written: boolean; created_at: string } | null = null;
  let recorded: { held: boolean } | null = input.record ? null : { held: true };

  const mustBeOpen = () => {
    if (outcome === 'expired' || outcome === 'released')
      throw refuse(RESERVATION_CLOSED, 'The reservation has expired');
  };
  setHandler(
    completeUpdate,
    async (c) => {
      if (outcome === null) {
        claim = c;
        outcome = 'completing';
      }
      // The answer waits for the pin, so the API need not look for it (runs started before answered at once).
      if (!patched('complete-answers-when-written')) return { pin_id: input.pin_id };
      await condition(() => written !== null);
      if (!written!.written) throw refuse(PIN_NOT_WRITTEN, 'The pin could not be created');
      return { pin_id: input.pin_id, state: 'done' as const };
    },
    {
      validator: (c: PinClaim) => {
        if (c.reservation_id !== input.reservation_id)
          throw refuse(WRONG_RESERVATION, 'The token is for another reservation');
        mustBeOpen();
      },
    },
  );
  setHandler(
    extendHoldUpdate,
    async (until) => {
      deadline = until;
      await movePinReservationExpiry({
        pin_id: input.pin_id,
        reservation_id: input.reservation_id,
        expires_at_ms: until,
      });
      return { expires_at: new Date(until).toISOString() };
    },
    {
      validator: (until: number) => {
        mustBeOpen();
        if (outcome === 'completing') throw refuse(ALREADY_COMPLETING, 'The claim is already being completed');
        if (!Number.isFinite(until) || until <= Date.now())
          throw refuse('InvalidDeadline', 'The new deadline must be in the future');
      },
    },
  );
  setHandler(reserveUpdate, async () => {
    await condition(() => recorded !== null);
    if (!recorded!.held) throw refuse(NAME_TAKEN, 'A pin holds the name already');
    return { reservation_id: input.reservation_id };
  });
  setHandler(releaseSignal, (reservationId) => {
    if (reservationId === input.reservation_id && outcome === null) outcome = 'released';
  });

  if (input.record) {
    // Branching on the input replays deterministically: runs started before had no record and take no step here.
    recorded = await recordPinReservation(input);
    if (!recorded.held) {
      await condition(allHandlersFinished);
      return 'released';
    }
  }
  while (outcome === null) {
    const target = deadline;
    const moved = await condition(() => outcome !== null || deadline !== target, Math.max(1, target - Date.now()));
    if (!moved && outcome === null && deadline === target) outcome = 'expired';
  }

  // Handlers set `outcome`; the compiler cannot see that and narrows it to what the loop itself assigns.
  const decided = outcome as 'completing' | 'expired' | 'released';
  if (decided !== 'completing') {
    await closePinReservation({ pin_id: input.pin_id, reservation_id: input.reservation_id });
    await condition(allHandlersFinished);
    return decided;
  }
  written = await writeClaimedPin({ reservation: input, claim: claim! });
  if (written.written && input.callback_url) {
    const callback: PinCreatedCallbackInput = {
      url: input.callback_url,
      client_id: input.client_id,
      retry: input.callback,
      notification: {
        event: 'pin_created',
        pin_id: input.pin_id,
        reservation_id: input.reservation_id,
        name: input.name,
        country_code: input.country_code,
        brand_id: input.brand_id,
        created_at: written.created_at,
      },
    };
    await startChild(pinCreatedCallbackWorkflow, {
      workflowId: pinCreatedWorkflowId(input.reservation_id),
      args: [callback],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  }
  await condition(allHandlersFinished);
  return written.written ? 'completed' : 'failed';
}

/**
 * POSTs pin_created to the agent's callback_url, signed like job webhooks: a 2xx or 4xx answer ends
 * delivery, a 5xx, timeout or network error is retried with backoff for `retry.total_seconds` (24 hours).
 */
export async function pinCreatedCallbackWorkflow(input: PinCreatedCallbackInput): Promise<{ status: number }> {
  const { deliverPinCreated } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: input.retry.total_seconds * 1000,
    retry: { initialInterval: input.retry.initial_ms, backoffCoefficient: 2, maximumInterval: '10 minutes' },
  });
  return deliverPinCreated(input);
}
