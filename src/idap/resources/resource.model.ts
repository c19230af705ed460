import { stableUuid } from '../../lib/ids';
import { Schema, model } from 'mongoose';
import { tenantOwned } from '../../lib/tenancy';

export const RESOURCE_TYPES = [
  'businesses',
  'domains',
  'contacts',
  'emails',
  'phones',
  'company_registry',
  'linkedin_profiles',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/**
 * One lead-data resource (idap://<resource_type>/<resource_id>) of one tenant.
 * `related` holds refs to other resources (a business's domain, phones, contacts...), so `include`
 * can fetch them; `source_job_ids` records which jobs found it, `first_seen_job_id` the one that created it (a
 * watch's run counts what it saw first: src/watches).
 */
const resourceSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    resource_type: { type: String, enum: RESOURCE_TYPES, required: true },
    data: { type: Schema.Types.Mixed, required: true },
    flags: { type: [String], default: ['new'] },
    related: { type: [String], default: [] },
    source_job_ids: { type: [String], default: [] },
    first_seen_job_id: { type: String, default: null },
  },
  { timestamps: { createdAt: 'created_at', updatedAt: 'modified_at' } as const, versionKey: false, minimize: false },
);
resourceSchema.index({ client_id: 1, resource_type: 1, _id: 1 });
// A list or sync reads one tenant's type in (modified_at, _id) order from a cursor (sync.ts): one range of this index.
resourceSchema.index({ client_id: 1, resource_type: 1, modified_at: 1, _id: 1 });
resourceSchema.index({ client_id: 1, source_job_ids: 1 });
resourceSchema.index({ client_id: 1, first_seen_job_id: 1, resource_type: 1 });
resourceSchema.plugin(tenantOwned);

export const ResourceModel = model('Resource', resourceSchema, 'idap_resources');

/**
 * A resource id derived from what identifies the thing in the real world (a place id, a domain name,
 * an e-mail address) within a tenant: a job that runs again, or an activity that is retried after a
 * worker died, writes the same ids and so cannot create duplicates.
 */
export function resourceId(clientId: string, type: ResourceType, naturalKey: string): string {
  return stableUuid(clientId, type, naturalKey.trim().toLowerCase());
}

export const idapRef = (type: string, id: string) => `idap://${type}/${id}`;

/**
 * Which resources each job wrote: `<job_id>|<type>/<resource_id>`, written beside the resources (writeResources).
 * A job's follow-up index workflow reads its resources as one range of _id,
 * which every engine serves from an index, where `source_job_ids` needs one of its own (the devstack's FerretDB
 * scanned every tenant's resources for it). Purged with the job's items (src/retention).
 */
const jobResourceSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
  },
  { versionKey: false },
);
jobResourceSchema.plugin(tenantOwned);
export const JobResourceModel = model('JobResource', jobResourceSchema, 'idap_job_resources');
export const jobResourceId = (jobId: string, type: ResourceType, id: string) => `${jobId}|${type}/${id}`;
/** The _id range of a job's entries ('}' follows '|'). */
export const jobResourcesOf = (clientId: string, jobId: string) => ({
  client_id: clientId,
  _id: { $gte: `${jobId}|`, $lt: `${jobId}}` },
});
