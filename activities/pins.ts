import type Redis from 'ioredis';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { reservationRecords } from '../src/pins/reservation-records';
import { indexPin, type PinSearchConfig } from '../src/pins/search';
import { postSignedJson } from '../src/jobs/webhooks';
import type { KeyRing } from '../src/lib/crypto';
import type { OutboundPolicy } from '../src/lib/outbound';
import type { ActivityRecorder } from '../src/activity/recorder';
import type { PinClaim, PinCreatedCallbackInput, PinReservationInput } from '../workflows/pin-reservation-api';

export const RESERVATION_HEADER = 'X-Pin-Reservation-Id';

export function createPinActivities(deps: {
  activity: { recorder: ActivityRecorder };
  pins: { search: PinSearchConfig; redis: Redis; ring: KeyRing };
  outbound: OutboundPolicy;
}) {
  return {
    /** The hold's document, before the run holds the name (none when a pin holds it already). */
    recordPinReservation: reservationRecords.recordHold,

    /**
     * Writes the claimed pin once (reservation-records.ts), then the search index, the reservation's state and
     * the activity log; a pin of another reservation under the name ends the claim as failed.
     */
    async writeClaimedPin({
      reservation: r,
      claim,
    }: {
      reservation: PinReservationInput;
      claim: PinClaim;
    }): Promise<{ written: boolean; created_at: string }> {
      const now = new Date();
      const pin = await reservationRecords.writePin(r, claim, now);
      if (!pin) return { written: false, created_at: now.toISOString() };
      // Meilisearch's failures are AppErrors: the activity retries.
      await indexPin(pin, deps.pins.search, deps.pins.redis);
      await reservationRecords.markCompleted(r);
      await deps.activity.recorder.record({
        clientId: r.client_id,
        actor: { id: r.client_id, kind: 'client', name: null, role: 'client_user' },
        action: 'pin.claimed',
        subject: { kind: 'pin', id: r.pin_id },
        shipped: 'pins_claimed',
        label: r.pin_id,
        at: pin.created_at,
        key: `pin-claimed-${r.reservation_id}`,
      });
      return { written: true, created_at: pin.created_at.toISOString() };
    },

    /** The hold ended without a pin (expired or released): the name is free again. */
    closePinReservation: reservationRecords.close,
    movePinReservationExpiry: reservationRecords.moveExpiry,

    /**
     * POSTs pin_created, signed with the reservation's own secret (returned once by confirm-pin, stored sealed);
     * a refusal (4xx) ends delivery without retry, a refused address or a redirect fails it (src/lib/outbound.ts).
     * `webhook-id` is `pin_created_<reservation_id>`: one notification per reservation, the same on every retry.
     */
    async deliverPinCreated(input: PinCreatedCallbackInput): Promise<{ status: number }> {
      const { pin_id, reservation_id } = input.notification;
      const sealed = await reservationRecords.callbackSecretSealed({ pin_id, reservation_id });
      if (!sealed) {
        // Reservations confirmed before callbacks had secrets of their own: nothing their agent could verify.
        const message = `reservation ${reservation_id} has no callback secret`;
        throw ApplicationFailure.nonRetryable(message, 'CallbackSecretMissing');
      }
      const status = await postSignedJson({
        url: input.url,
        id: `pin_created_${reservation_id}`,
        body: JSON.stringify(input.notification),
        secrets: [deps.pins.ring.decrypt(sealed)],
        headers: { [RESERVATION_HEADER]: reservation_id, 'X-Lead-Event': 'pin_created' },
        signal: Context.current().cancellationSignal,
        policy: deps.outbound,
        what: 'pin_created callback',
      });
      return { status };
    },
  };
}
