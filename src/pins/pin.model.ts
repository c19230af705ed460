import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';

export const PIN_SUBSCRIPTION_STATES = ['active', 'lapsed'] as const;

/**
 * A claimed pin. The registry is global: a `COUNTRY:NAME` is unique across all clients (its _id says so),
 * so pins are not tenant-owned; each records the client and brand it was claimed through. resolve-pin
 * serves only pins whose subscription is active and not past `subscription.expires_at`.
 */
const pinSchema = new Schema(
  {
    _id: { type: String, required: true }, // COUNTRY:NAME, upper-case
    country_code: { type: String, required: true },
    name: { type: String, required: true },
    client_id: { type: String, required: true },
    brand_id: { type: Number, default: null },
    reservation_id: { type: String, required: true },
    gps: { lat: { type: Number, required: true }, lng: { type: Number, required: true } },
    structured_address: { type: Schema.Types.Mixed, default: () => ({}) },
    business: { type: Schema.Types.Mixed, default: () => ({}) },
    subscription: {
      status: { type: String, enum: PIN_SUBSCRIPTION_STATES, default: 'active' },
      expires_at: { type: Date, required: true },
    },
  },
  { ...baseSchemaOptions, minimize: false },
);
pinSchema.index({ client_id: 1, brand_id: 1 });
// The KPIs' pins_created: per client, and platform-wide.
pinSchema.index({ client_id: 1, created_at: 1 });
pinSchema.index({ created_at: 1 });
// What the built-in search engine filters on first.
pinSchema.index({ country_code: 1 });
pinSchema.index({ 'subscription.status': 1, 'subscription.expires_at': 1 });

export type PinDoc = InferSchemaType<typeof pinSchema> & { _id: string; created_at: Date; updated_at: Date };
export const PinModel = model('Pin', pinSchema, 'pins');
