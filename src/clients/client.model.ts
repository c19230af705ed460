import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions, newId } from '../lib/ids';

/**
 * A tenant. The API key and secret are kept only as hashes; the pair is also sealed with CREDENTIALS_KEY for
 * scheduled work.
 */
const clientSchema = new Schema(
  {
    _id: { type: String, default: newId },
    name: { type: String, required: true },
    content_domains: { type: [String], default: [] },
    admin_email: { type: String, required: true },
    is_active: { type: Boolean, default: true },
    api_key_hash: { type: String, required: true },
    api_secret_hash: { type: String, required: true },
    credentials_encrypted: { type: String, default: null },
    deploy_hook_url: { type: String, default: null },
    /**
     * The client's own bounds on jobs, set by a super_admin (docs/security.md, "Jobs per tenant"); a field left null
     * takes the deployment's default (JOB_CLIENT_*), and 0 is no bound.
     */
    job_limits: {
      max_unfinished: { type: Number, default: null },
      per_day: { type: Number, default: null },
      per_month: { type: Number, default: null },
      max_locations: { type: Number, default: null },
      max_results: { type: Number, default: null },
    },
  },
  baseSchemaOptions,
);

clientSchema.index({ created_at: 1 }); // KPIs: clients that existed at the end of a window

export type ClientDoc = InferSchemaType<typeof clientSchema> & { _id: string; created_at: Date; updated_at: Date };
export const ClientModel = model('Client', clientSchema, 'clients');

/**
 * Which client a content domain belongs to. The domain is the _id, so one domain names exactly one
 * client (X-Content-Domain resolves without ambiguity) on any document engine.
 */
const contentDomainSchema = new Schema(
  { _id: { type: String, required: true }, client_id: { type: String, required: true, index: true } },
  baseSchemaOptions,
);
export const ContentDomainModel = model('ContentDomain', contentDomainSchema, 'content_domains');
