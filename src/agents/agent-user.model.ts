import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions, newId } from '../lib/ids';
import { tenantOwned, type AgentUserLimits } from '../lib/tenancy';

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

/** The limits of a token's active agent users (what authentication attaches to the agent's caller). */
export async function agentUserLimitsOf(clientId: string, tokenId: string): Promise<AgentUserLimits[]> {
  const docs = await AgentUserModel.find(
    { client_id: clientId, token_id: tokenId, is_active: true },
    { brand_id: 1, rate_limit_rpm: 1, rate_limit_rpd: 1, monthly_budget_usd: 1 },
  ).lean<Pick<AgentUserDoc, '_id' | 'brand_id' | 'rate_limit_rpm' | 'rate_limit_rpd' | 'monthly_budget_usd'>[]>();
  return docs.map((d) => ({
    agentUserId: d._id,
    brandId: d.brand_id,
    rateLimitRpm: d.rate_limit_rpm ?? null,
    rateLimitRpd: d.rate_limit_rpd ?? null,
    monthlyBudgetUsd: d.monthly_budget_usd ?? null,
  }));
}
