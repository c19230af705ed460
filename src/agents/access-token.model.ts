import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions, newId } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';

/**
 * An agent access token (PAT). Issued by the access-request flow; authentication only looks it up
 * by the SHA-256 of the presented token.
 */
const accessTokenSchema = new Schema(
  {
    _id: { type: String, default: newId },
    client_id: { type: String, required: true },
    token_hash: { type: String, required: true, unique: true },
    token_prefix: { type: String, required: true },
    brand_ids: { type: [Number], default: [] },
    scopes: { type: [String], default: [] },
    owner_email: { type: String, default: null },
    project_name: { type: String, default: null },
    multi_brand: { type: Boolean, default: false },
    fingerprint: { type: Schema.Types.Mixed, default: () => ({}) },
    request_id: { type: String, default: null },
    ttl_hours: { type: Number, default: 72 },
    /**
     * The limits approved for the token (null: none). Its agent users start with them and are held to their own;
     * the token is held to these while it acts for no brand (src/agents/agent-limits.ts).
     */
    rate_limit_rpm: { type: Number, default: null },
    rate_limit_rpd: { type: Number, default: null },
    monthly_budget_usd: { type: Number, default: null },
    expires_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
  },
  { ...baseSchemaOptions, minimize: false },
);
// KPIs: tokens issued in a window, and tokens still usable, of one client or of all.
accessTokenSchema.index({ client_id: 1, created_at: -1 });
accessTokenSchema.index({ created_at: -1 });
accessTokenSchema.index({ client_id: 1, revoked_at: 1, expires_at: 1 });
accessTokenSchema.index({ revoked_at: 1, expires_at: 1 });
accessTokenSchema.plugin(tenantOwned);

export type AccessTokenDoc = InferSchemaType<typeof accessTokenSchema> & {
  _id: string;
  created_at: Date;
  updated_at: Date;
};
export const AccessTokenModel = model('AccessToken', accessTokenSchema, 'access_tokens');

/**
 * When a token was last used, apart from the token: the devstack's FerretDB rewrites a whole document on
 * update, so a last-used write racing a revocation on the token itself could put the revocation back.
 */
const accessTokenUsageSchema = new Schema(
  {
    _id: { type: String, required: true }, // the token's id
    client_id: { type: String, required: true },
    last_used_at: { type: Date, required: true },
  },
  { versionKey: false },
);
accessTokenUsageSchema.plugin(tenantOwned);

export const AccessTokenUsageModel = model('AccessTokenUsage', accessTokenUsageSchema, 'access_token_usage');

/** Last use of each token of a client (absent: never used). */
export async function lastUsedOf(clientId: string, tokenIds: string[]): Promise<Map<string, Date>> {
  const rows = await AccessTokenUsageModel.find({ client_id: clientId, _id: { $in: tokenIds } }).lean<
    { _id: string; last_used_at: Date }[]
  >();
  return new Map(rows.map((r) => [r._id, r.last_used_at]));
}
