import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';

export const BRAND_ROLES = ['owner', 'admin', 'member'] as const;
export type BrandRole = (typeof BRAND_ROLES)[number];

/**
 * A brand of a client. Its id is an integer (docs/decisions.md §9), allocated by src/brands/brand-ids.ts;
 * slugs are unique within a client (so a clash never reveals another tenant's brand).
 */
const brandSchema = new Schema(
  {
    _id: { type: Number, required: true },
    client_id: { type: String, required: true },
    brand_name: { type: String, required: true },
    slug: { type: String, required: true },
    subscription_status: { type: String, default: 'active' },
    is_active: { type: Boolean, default: true },
    billing_email: { type: String, default: null },
    settings: { type: Schema.Types.Mixed, default: () => ({}) },
    information: { type: Schema.Types.Mixed, default: () => ({}) },
    /** Storage key of the current logo (content-addressed), or null. */
    logo_key: { type: String, default: null },
  },
  { ...baseSchemaOptions, minimize: false },
);
brandSchema.index({ client_id: 1, slug: 1 }, { unique: true });
brandSchema.plugin(tenantOwned);

export type BrandDoc = InferSchemaType<typeof brandSchema> & { _id: number; created_at: Date; updated_at: Date };
export const BrandModel = model('Brand', brandSchema, 'brands');

/** A dashboard user's membership of a brand. One per user and brand (its _id says so). */
const memberSchema = new Schema(
  {
    _id: { type: String, required: true }, // `${brand_id}:${user_id}`
    client_id: { type: String, required: true },
    brand_id: { type: Number, required: true },
    user_id: { type: String, required: true },
    role: { type: String, enum: BRAND_ROLES, required: true },
  },
  baseSchemaOptions,
);
memberSchema.index({ client_id: 1, brand_id: 1 });
memberSchema.index({ user_id: 1 });
memberSchema.plugin(tenantOwned);

export const memberId = (brandId: number, userId: string) => `${brandId}:${userId}`;
export type MemberDoc = InferSchemaType<typeof memberSchema> & { _id: string; created_at: Date; updated_at: Date };
export const BrandMemberModel = model('BrandMember', memberSchema, 'brand_members');
