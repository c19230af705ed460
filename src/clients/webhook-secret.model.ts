import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';

/**
 * A client's webhook signing secret (src/lib/standard-webhooks.ts), one document per client (_id = client_id).
 * Only sealed (AES-256-GCM under the key ring, src/lib/crypto.ts KeyRing); never stored or logged in clear.
 * After a rotation the replaced secret keeps signing beside the new one until `previous_expires_at`.
 */
const webhookSecretSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    current_sealed: { type: String, required: true },
    current_created_at: { type: Date, required: true },
    previous_sealed: { type: String, default: null },
    previous_expires_at: { type: Date, default: null },
  },
  { ...baseSchemaOptions, minimize: false },
);
webhookSecretSchema.plugin(tenantOwned);

export type WebhookSecretDoc = InferSchemaType<typeof webhookSecretSchema> & { _id: string };
export const WebhookSecretModel = model('WebhookSecret', webhookSecretSchema, 'webhook_secrets');
