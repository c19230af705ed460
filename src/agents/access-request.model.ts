import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';

export const ACCESS_REQUEST_STATES = ['pending', 'approved', 'denied', 'expired'] as const;

/**
 * An agent's request for an access token. Its secrets are kept as SHA-256 hashes; the token issued
 * on approval is kept sealed (AES-256-GCM) only until the agent's first poll picks it up. Not
 * tenant-owned: a request by e-mail may name no client, and every lookup is by id plus a secret.
 */
const accessRequestSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, default: null },
    owner_email: { type: String, default: null },
    project_name: { type: String, required: true },
    requested_scopes: { type: [String], required: true },
    ttl_hours: { type: Number, required: true },
    multi_brand: { type: Boolean, default: false },
    fingerprint: { type: Schema.Types.Mixed, default: () => ({}) },
    /** What a request by e-mail says about the agent user it will become. */
    profile: { type: Schema.Types.Mixed, default: () => ({}) },
    poll_token_hash: { type: String, required: true },
    /**
     * Requests made before approvers were recorded: one approval token, which decides as the client's
     * administrator.
     */
    approval_token_hash: { type: String, default: null },
    /** Each address the approval e-mail went to, with its own approval token (hashed) and what it may grant. */
    approvers: {
      type: [
        new Schema(
          {
            token_hash: { type: String, required: true },
            email: { type: String, required: true },
            role: { type: String, enum: ['client_admin', 'brand_admin'], required: true },
            user_id: { type: String, default: null },
          },
          { _id: false },
        ),
      ],
      default: [],
    },
    status: { type: String, enum: ACCESS_REQUEST_STATES, default: 'pending' },
    expires_at: { type: Date, required: true },
    decided_at: { type: Date, default: null },
    /** Who decided: the e-mail address of the link's recipient or of the signed-in approver (null: not recorded). */
    decided_by: { type: String, default: null },
    token_id: { type: String, default: null },
    token_expires_at: { type: Date, default: null },
    brand_ids: { type: [Number], default: [] },
    /**
     * The limits approved (the approver's changes over the offer: what the agent asked for, brand defaults where it
     * asked for none), kept so that a retried decision applies the same ones.
     */
    limits: { type: Schema.Types.Mixed, default: null },
    /** The issued token, sealed, until the first poll after approval takes it. */
    token_sealed: { type: String, default: null },
  },
  { ...baseSchemaOptions, minimize: false },
);

export type AccessRequestDoc = InferSchemaType<typeof accessRequestSchema> & {
  _id: string;
  created_at: Date;
  updated_at: Date;
};
export const AccessRequestModel = model('AccessRequest', accessRequestSchema, 'access_requests');

/** A pending request past its deadline reads as expired even before the workflow has marked it. */
export const stateOf = (doc: Pick<AccessRequestDoc, 'status' | 'expires_at'>) =>
  doc.status === 'pending' && doc.expires_at <= new Date() ? 'expired' : doc.status;

/** Why a request in this state can no longer be decided. */
export const stateReason = (state: string) =>
  state === 'expired' ? 'Access request has expired' : `Access request already ${state}`;
