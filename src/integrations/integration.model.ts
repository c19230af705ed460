import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions, newId } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';

export const SPEND_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type SpendPeriod = (typeof SPEND_PERIODS)[number];
export type SpendAction = 'notify' | 'block';

/**
 * A brand's key for a provider. Its id is an integer (docs/decisions.md §9). The credentials are stored
 * only sealed (AES-256-GCM under the key id in the value, src/lib/crypto.ts KeyRing) with a masked
 * preview beside them; the plaintext is never stored or returned.
 */
const integrationSchema = new Schema(
  {
    _id: { type: Number, required: true },
    client_id: { type: String, required: true },
    brand_id: { type: Number, required: true },
    provider_name: { type: String, required: true },
    key_label: { type: String, required: true },
    credentials_sealed: { type: String, required: true },
    credentials_masked: { type: Schema.Types.Mixed, required: true },
    daily_limit: { type: Number, default: null },
    minute_limit: { type: Number, default: null },
    is_primary: { type: Boolean, default: false },
    is_active: { type: Boolean, default: true },
    country_code: { type: String, default: null },
    spend_limit_amount: { type: Number, default: null },
    spend_limit_period: { type: String, default: null },
    spend_limit_action: { type: String, default: null },
    share_with_pool: { type: Boolean, default: false },
    last_used_at: { type: Date, default: null },
  },
  { ...baseSchemaOptions, minimize: false },
);
integrationSchema.index({ client_id: 1, brand_id: 1, provider_name: 1 });
integrationSchema.plugin(tenantOwned);

export type IntegrationDoc = Omit<
  InferSchemaType<typeof integrationSchema>,
  'spend_limit_period' | 'spend_limit_action'
> & {
  /** The spend settings hold what the contract allows (validated when written). */
  spend_limit_period?: SpendPeriod | null;
  spend_limit_action?: SpendAction | null;
  _id: number;
  created_at: Date;
  updated_at: Date;
};
export const IntegrationModel = model('Integration', integrationSchema, 'integrations');

/**
 * One relayed call (kind `call`) or a billing-sync correction of one day (kind `adjustment`), written
 * once and never updated (FerretDB does not make concurrent updates of one document atomic). Spend
 * and usage reports, and the admin KPIs, aggregate these by client, brand, provider and day. brand_id
 * is the key's owner; acting_brand_id the brand the call was made for (another one for a pooled key).
 */
const relayUsageSchema = new Schema(
  {
    _id: { type: String, default: newId },
    client_id: { type: String, required: true },
    brand_id: { type: Number, required: true },
    acting_brand_id: { type: Number, required: true },
    integration_id: { type: Number, required: true },
    provider_name: { type: String, required: true },
    /** The agent user whose call it was (null: a dashboard caller, a triple, or an adjustment). */
    agent_user_id: { type: String, default: null },
    kind: { type: String, enum: ['call', 'adjustment'], required: true },
    /** UTC day, YYYY-MM-DD. */
    day: { type: String, required: true },
    calls: { type: Number, required: true },
    amount: { type: Number, required: true },
    provider_status: { type: Number, default: null },
    at: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);
relayUsageSchema.index({ client_id: 1, integration_id: 1, day: 1 });
relayUsageSchema.index({ client_id: 1, brand_id: 1, provider_name: 1, day: 1 });
// The KPIs' relay figures: per client, and platform-wide.
relayUsageSchema.index({ client_id: 1, day: 1 });
relayUsageSchema.index({ day: 1 });
relayUsageSchema.plugin(tenantOwned);

export const RelayUsageModel = model('RelayUsage', relayUsageSchema, 'relay_usage');
