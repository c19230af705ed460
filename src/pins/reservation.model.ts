import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';

export const RESERVATION_STATES = ['held', 'completed', 'expired'] as const;

/**
 * A name held by confirm-pin until the end user completes the claim or the hold expires. The _id is the
 * pin id `COUNTRY:NAME`, so a name has at most one reservation document (the reservation workflow owns its
 * state; the registry only reads it). Global like the pins themselves: each records the client and brand.
 * A name is held while `state` is 'held' and `expires_at` is in the future.
 */
const reservationSchema = new Schema(
  {
    _id: { type: String, required: true }, // COUNTRY:NAME, upper-case
    reservation_id: { type: String, required: true },
    country_code: { type: String, required: true },
    name: { type: String, required: true },
    client_id: { type: String, required: true },
    brand_id: { type: Number, default: null },
    channel: { type: String, required: true },
    identifier: { type: String, required: true },
    callback_url: { type: String, default: null },
    /** The pin_created callback's signing secret (whsec_…), sealed with the key ring; null without a callback_url. */
    callback_secret_sealed: { type: String, default: null },
    state: { type: String, enum: RESERVATION_STATES, default: 'held' },
    expires_at: { type: Date, required: true },
  },
  { ...baseSchemaOptions, minimize: false },
);
reservationSchema.index({ reservation_id: 1 }, { unique: true });

export type ReservationDoc = InferSchemaType<typeof reservationSchema> & {
  _id: string;
  created_at: Date;
  updated_at: Date;
};
export const ReservationModel = model('PinReservation', reservationSchema, 'pin_reservations');
