import { setTimeout as sleep } from 'node:timers/promises';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateStage,
  type Client,
} from '@temporalio/client';
import { AppError } from '../lib/errors';
import { failureAnswer, failureTypeOf, withinDeadline, workflowEnded } from '../lib/engines/temporal';
import { searchAttributesOf } from '../../workflows/search-attributes';
import { pinReservationWorkflow } from '../../workflows/pin-reservation';
import {
  NAME_TAKEN,
  PIN_NOT_WRITTEN,
  RESERVATION_CLOSED,
  WRONG_RESERVATION,
  completeUpdate,
  pinReservationWorkflowId,
  releaseSignal,
  reserveUpdate,
  type PinClaim,
  type PinReservationInput,
  type PinReservationRecord,
} from '../../workflows/pin-reservation-api';

/** What the API answers when the reservation's workflow refuses a completion. */
const COMPLETION_REFUSALS = {
  [RESERVATION_CLOSED]: () => AppError.unauthorized('The reservation has expired'),
  [WRONG_RESERVATION]: () => AppError.notFound('Reservation not found'),
  [PIN_NOT_WRITTEN]: () => new AppError(502, 'The pin could not be created'),
};

export type CompletionAnswer = 'done' | 'creating' | 'closed';

/** A failed hold's release is best effort, after the request has already waited its deadline. */
const RELEASE_DEADLINE_MS = 2_000;

/** The pin reservation's workflow calls, by the workflow function and its shared definitions. */
export function createPinWorkflows(temporal: Client, taskQueue: string) {
  const handle = (pinId: string) =>
    temporal.workflow.getHandle<typeof pinReservationWorkflow>(pinReservationWorkflowId(pinId));

  return {
    /**
     * Holds the name until `expires_at_ms` with its reservation document, as one step: the run is started with the
     * `reserve` Update (update-with-start), writes the document itself and only then answers it. One run per name
     * at a time (a closed run does not block a new one), so false means the name is held by another reservation
     * or claimed by a pin. Should the answer not come (Temporal or the worker slow past the request's deadline),
     * the hold is released before the error goes on: the run, once it gets to it, records it and closes it.
     */
    async hold(input: PinReservationInput & { record: PinReservationRecord }): Promise<boolean> {
      const startWorkflowOperation = new WithStartWorkflowOperation(pinReservationWorkflow, {
        taskQueue,
        workflowId: pinReservationWorkflowId(input.pin_id),
        args: [input],
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        typedSearchAttributes: searchAttributesOf({ clientId: input.client_id, brandIds: [input.brand_id] }),
      });
      try {
        await withinDeadline(temporal, () =>
          temporal.workflow.executeUpdateWithStart(reserveUpdate, { startWorkflowOperation }),
        );
        return true;
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError || failureTypeOf(err) === NAME_TAKEN) return false;
        // The release names this reservation, so it cannot end another's run (nor fail when none started).
        const signal = () => handle(input.pin_id).signal(releaseSignal, input.reservation_id);
        await withinDeadline(temporal, signal, RELEASE_DEADLINE_MS).catch(() => undefined);
        throw err;
      }
    },

    /** Ends a hold without a pin and waits (briefly) for its run to close. */
    async release(pinId: string, reservationId: string): Promise<void> {
      const run = handle(pinId);
      await withinDeadline(temporal, () => run.signal(releaseSignal, reservationId)).catch(() => undefined);
      await Promise.race([run.result().catch(() => undefined), sleep(5_000)]);
    },

    /**
     * Hands the end user's claim to the hold: `done` once the pin is written within `waitMs`, `creating` while it
     * is still being written, `closed` when the run has already ended (the caller looks at what it left).
     * Refusals (expired, another reservation's token, the pin not written) are AppErrors.
     */
    async complete(pinId: string, claim: PinClaim, waitMs: number): Promise<CompletionAnswer> {
      try {
        const update = await withinDeadline(temporal, () =>
          handle(pinId).startUpdate(completeUpdate, { args: [claim], waitForStage: WorkflowUpdateStage.ACCEPTED }),
        );
        const result = update.result();
        result.catch(() => undefined); // answered past the wait: the caller already said `creating`
        const answer = await Promise.race([result, sleep(waitMs).then(() => null)]);
        // A run from before the answer waited for the pin says only that it accepted the claim.
        return answer?.state === 'done' ? 'done' : 'creating';
      } catch (err) {
        if (workflowEnded(err)) return 'closed';
        throw failureAnswer(err, COMPLETION_REFUSALS);
      }
    },
  };
}

export type PinWorkflows = ReturnType<typeof createPinWorkflows>;
