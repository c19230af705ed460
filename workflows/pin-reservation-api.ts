// The pin-reservation workflow's name, updates, signal and types, shared by the workflow and the API that starts
// and updates it.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Schemas } from '../src/lib/contract-types';

/** One id per name: Temporal then lets only one reservation of a name run at a time. */
export const pinReservationWorkflowId = (pinId: string) => `pin-reservation-${pinId}`;
export const pinCreatedWorkflowId = (reservationId: string) => `pin-created-${reservationId}`;

/** A pin's address, as the end user sends it on completion (its fields checked and trimmed). */
export type PinAddress = Schemas['PinAddress'];

/** What the end user sends on completion (after the API checked the token, name and country). */
export interface PinClaim {
  reservation_id: string;
  lat: number;
  lng: number;
  structured_address: PinAddress;
  account_oauth_uid: string | null;
  verified_identifier: string | null;
}

export interface CallbackRetry {
  /** First retry interval; it doubles up to 10 minutes. */
  initial_ms: number;
  /** How long delivery is retried in all (24 hours; tests shorten it). */
  total_seconds: number;
}

/** The reservation document's own fields, which the run writes before it holds the name (see `reserveUpdate`). */
export interface PinReservationRecord {
  channel: string;
  identifier: string;
  /** The pin_created callback's signing secret, sealed with the key ring (null without a callback_url). */
  callback_secret_sealed: string | null;
}

export interface PinReservationInput {
  reservation_id: string;
  pin_id: string;
  country_code: string;
  name: string;
  client_id: string;
  brand_id: number;
  callback_url: string | null;
  /** When the hold ends unless completed or moved (epoch ms). */
  expires_at_ms: number;
  callback: CallbackRetry;
  /**
   * Given by confirm-pin (absent in runs started before): the run writes the reservation document itself, first,
   * so no hold exists without its record, whatever happens to the API that started it.
   */
  record?: PinReservationRecord;
}

export type ReservationOutcome = 'completed' | 'expired' | 'released' | 'failed';

/**
 * Failure types the API maps to answers: a closed (expired or released) reservation, a token of another
 * reservation.
 */
export const RESERVATION_CLOSED = 'ReservationClosed';
export const WRONG_RESERVATION = 'WrongReservation';
export const ALREADY_COMPLETING = 'AlreadyCompleting';
/** The claim was accepted but its pin could not be written (a pin of another reservation holds the name). */
export const PIN_NOT_WRITTEN = 'PinNotWritten';
/** The run found a pin already written under the name (by an earlier completed reservation): it holds nothing. */
export const NAME_TAKEN = 'NameTaken';

/**
 * The end user's completion: accepted once (later identical ones get the same answer), refused after expiry.
 * It answers once the pin is written (`done`); a run from before that answered at acceptance, without `state`.
 */
export const completeUpdate = defineUpdate<{ pin_id: string; state?: 'done' }, [PinClaim]>('complete');
/**
 * Sent with the run's start (update-with-start, the early return of temporalio/samples-typescript): answers once the
 * run has written its reservation document, so confirm-pin goes on only with a hold and its record both in place.
 * Refused with NAME_TAKEN when a pin holds the name already.
 */
export const reserveUpdate = defineUpdate<{ reservation_id: string }, []>('reserve');
/** Moves the hold's deadline (epoch ms, in the future): the updatable timer. */
export const extendHoldUpdate = defineUpdate<{ expires_at: string }, [number]>('extendHold');
/** Ends the hold without a pin (the signup link could not be delivered); carries the reservation id. */
export const releaseSignal = defineSignal<[string]>('release');

export type PinCreatedNotification = Schemas['PinCreatedNotification'];

export interface PinCreatedCallbackInput {
  url: string;
  client_id: string;
  notification: PinCreatedNotification;
  retry: CallbackRetry;
}
