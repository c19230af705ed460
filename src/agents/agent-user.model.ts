import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions, newId } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';

/** An agent's presence in one brand: one per brand its token was granted. Revoking it keeps the record. */
const agentUserSchema = new Schema(
  {
    _id: { type: String, default: newId },
    client_id: { type: String, required: true },
    brand_id: { type: Number, required: true },
    token_id: { type: String, required: true },
    request_id: { type: String, required: true },
    name: { type: String, default: null },
    description: { type: String, default: null },
    photo: { type: String, default: null },
    project_name: { type: String, required: true },
    owner_email: { type: String, default: null },
    scopes: { type: [String], default: [] },
    monthly_budget_usd: { type: Number, default: null },
    rate_limit_rpm: { type: Number, default: null },
    rate_limit_rpd: { type: Number, default: null },
    allowed_models: { type: [String], default: [] },
    is_active: { type: Boolean, default: true },
    revoked_at: { type: Date, default: null },
  },
  baseSchemaOptions,
);
agentUserSchema.index({ client_id: 1, brand_id: 1 });
agentUserSchema.index({ request_id: 1, brand_id: 1 }, { unique: true });
agentUserSchema.plugin(tenantOwned);

export type AgentUserDoc = InferSchemaType<typeof agentUserSchema> & {
  _id: string;
  created_at: Date;
  updated_at: Date;
};
export const AgentUserModel = model('AgentUser', agentUserSchema, 'agent_users');
