import { isDuplicateKeyError } from '../lib/errors';
import type { PinClaim, PinReservationInput } from '../../workflows/pin-reservation-api';
import { PinModel, type PinDoc } from './pin.model';
import { ReservationModel } from './reservation.model';

/**
 * A claimed pin's subscription starts active for a year; it lapses when `expires_at` passes unrenewed
 * (docs/pins-signup.md).
 */
const SUBSCRIPTION_DAYS = 365;

const ofReservation = (r: { pin_id: string; reservation_id: string }) => ({
  _id: r.pin_id,
  reservation_id: r.reservation_id,
});

/**
 * The reservation documents and claimed pins as the reservation's run writes them (its activities call these):
 * the pins area owns both collections.
 */
export const reservationRecords = {
  /**
   * The hold's document, written by its run before it holds the name; none when a pin (of an earlier completed
   * reservation) holds the name already. A name has one document (its _id), which a new reservation replaces.
   */
  async recordHold(r: PinReservationInput): Promise<{ held: boolean }> {
    if (await PinModel.exists({ _id: r.pin_id })) return { held: false };
    await ReservationModel.updateOne(
      { _id: r.pin_id },
      {
        $set: {
          reservation_id: r.reservation_id,
          country_code: r.country_code,
          name: r.name,
          client_id: r.client_id,
          brand_id: r.brand_id,
          channel: r.record!.channel,
          identifier: r.record!.identifier,
          callback_url: r.callback_url,
          state: 'held',
          expires_at: new Date(r.expires_at_ms),
          callback_secret_sealed: r.record!.callback_secret_sealed,
        },
      },
      { upsert: true },
    );
    return { held: true };
  },

  /** The hold ended without a pin (expired or released): the name is free again. */
  async close(r: { pin_id: string; reservation_id: string }): Promise<void> {
    await ReservationModel.updateOne({ ...ofReservation(r), state: 'held' }, { state: 'expired' });
  },

  async moveExpiry(r: { pin_id: string; reservation_id: string; expires_at_ms: number }): Promise<void> {
    await ReservationModel.updateOne(ofReservation(r), { expires_at: new Date(r.expires_at_ms) });
  },

  /**
   * Writes the claimed pin once: a retry finds its own pin (same reservation) and goes on; a pin of another
   * reservation under the same name (cannot happen while the workflow id holds the name, but is checked) ends
   * the claim, its reservation expired, and answers null.
   */
  async writePin(r: PinReservationInput, claim: PinClaim, now = new Date()): Promise<PinDoc | null> {
    try {
      return (
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
      if (existing?.reservation_id === r.reservation_id) return existing;
      await ReservationModel.updateOne(ofReservation(r), { state: 'expired' });
      return null;
    }
  },

  async markCompleted(r: { pin_id: string; reservation_id: string }): Promise<void> {
    await ReservationModel.updateOne(ofReservation(r), { state: 'completed' });
  },

  /** The pin_created callback's sealed signing secret (null for reservations confirmed before callbacks had one). */
  async callbackSecretSealed(r: { pin_id: string; reservation_id: string }): Promise<string | null> {
    const doc = await ReservationModel.findOne(ofReservation(r), { callback_secret_sealed: 1 }).lean<{
      callback_secret_sealed?: string | null;
    }>();
    return doc?.callback_secret_sealed ?? null;
  },
};
