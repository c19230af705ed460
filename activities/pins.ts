import type Redis from 'ioredis';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { PinModel, type PinDoc } from '../src/pins/pin.model';
import { ReservationModel } from '../src/pins/reservation.model';
import { indexPin, type PinSearchConfig } from '../src/pins/search';
import { isDuplicateKeyError } from '../src/lib/errors';
import { postSignedJson } from '../src/jobs/webhooks';
import type { KeyRing } from '../src/lib/crypto';
import type { OutboundPolicy } from '../src/lib/outbound';
import type { ActivityRecorder } from '../src/activity/recorder';
import type { PinClaim, PinCreatedCallbackInput, PinReservationInput } from '../workflows/pin-reservation-api';

/**
 * A claimed pin's subscription starts active for a year; it lapses when `expires_at` passes unrenewed
 * (docs/pins-signup.md).
 */
const SUBSCRIPTION_DAYS = 365;
export const RESERVATION_HEADER = 'X-Pin-Reservation-Id';

export function createPinActivities(deps: {
  activity: { recorder: ActivityRecorder };
  pins: { search: PinSearchConfig; redis: Redis; ring: KeyRing };
  outbound: OutboundPolicy;
}) {
  return {
    /**
     * Writes the claimed pin once: a retry finds its own pin (same reservation) and goes on; a pin of
     * another reservation under the same name (cannot happen while the workflow id holds the name, but
     * is checked) ends the claim as failed. Then the search index, the reservation's state, the activity log.
     */
    async writeClaimedPin({
      reservation: r,
      claim,
    }: {
      reservation: PinReservationInput;
      claim: PinClaim;
    }): Promise<{ written: boolean; created_at: string }> {
      const now = new Date();
      let pin: PinDoc;
      try {
        pin = (
          await PinModel.create({
            _id: r.pin_id,
            country_code: r.country_code,
            name: r.name,
            client_id: r.client_id,
            brand_id: r.brand_id,
            reservation_id: r.reservation_id,
            gps: { lat: claim.lat, lng: claim.lng },
            structured_address: claim.structured_address,
            business: {
              ...(claim.structured_address.address_contact_name
                ? { contact_name: claim.structured_address.address_contact_name }
                : {}),
            },
            subscription: { status: 'active', expires_at: new Date(now.getTime() + SUBSCRIPTION_DAYS * 86_400_000) },
          })
        ).toObject() as PinDoc;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const existing = await PinModel.findById(r.pin_id).lean<PinDoc>();
        if (existing?.reservation_id !== r.reservation_id) {
          await ReservationModel.updateOne({ _id: r.pin_id, reservation_id: r.reservation_id }, { state: 'expired' });
          return { written: false, created_at: now.toISOString() };
        }
        pin = existing;
      }
      // Meilisearch's failures are AppErrors: the activity retries.
      await indexPin(pin, deps.pins.search, deps.pins.redis);
      await ReservationModel.updateOne({ _id: r.pin_id, reservation_id: r.reservation_id }, { state: 'completed' });
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
    async closePinReservation(input: { pin_id: string; reservation_id: string }): Promise<void> {
      await ReservationModel.updateOne(
        { _id: input.pin_id, reservation_id: input.reservation_id, state: 'held' },
        { state: 'expired' },
      );
    },

    async movePinReservationExpiry(input: {
      pin_id: string;
      reservation_id: string;
      expires_at_ms: number;
    }): Promise<void> {
      await ReservationModel.updateOne(
        { _id: input.pin_id, reservation_id: input.reservation_id },
        { expires_at: new Date(input.expires_at_ms) },
      );
    },

    /**
     * POSTs pin_created, signed with the reservation's own secret (returned once by confirm-pin, stored sealed);
     * a refusal (4xx) ends delivery without retry, a refused address or a redirect fails it (src/lib/outbound.ts).
     * `webhook-id` is `pin_created_<reservation_id>`: one notification per reservation, the same on every retry.
     */
    async deliverPinCreated(input: PinCreatedCallbackInput): Promise<{ status: number }> {
      const { pin_id, reservation_id } = input.notification;
      const reservation = await ReservationModel.findOne(
        { _id: pin_id, reservation_id },
        { callback_secret_sealed: 1 },
      ).lean<{ callback_secret_sealed?: string | null }>();
      if (!reservation?.callback_secret_sealed) {
        // Reservations confirmed before callbacks had secrets of their own: nothing their agent could verify.
        const message = `reservation ${reservation_id} has no callback secret`;
        throw ApplicationFailure.nonRetryable(message, 'CallbackSecretMissing');
      }
      const status = await postSignedJson({
        url: input.url,
        id: `pin_created_${reservation_id}`,
        body: JSON.stringify(input.notification),
        secrets: [deps.pins.ring.decrypt(reservation.callback_secret_sealed)],
        headers: { [RESERVATION_HEADER]: reservation_id, 'X-Lead-Event': 'pin_created' },
        signal: Context.current().cancellationSignal,
        policy: deps.outbound,
        what: 'pin_created callback',
      });
      return { status };
    },
  };
}
