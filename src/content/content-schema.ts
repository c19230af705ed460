import { Schema, type SchemaDefinition } from 'mongoose';
import { baseSchemaOptions, newId } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';

/**
 * The schema every content record shares: a UUID id, its client, a slug that is unique per client
 * (a unique index {client_id, slug}, so concurrent creates of one slug cannot both succeed), and
 * the tenant guard.
 */
export function contentSchema(fields: SchemaDefinition): Schema {
  const schema = new Schema(
    {
      _id: { type: String, default: newId },
      client_id: { type: String, required: true },
      slug: { type: String, required: true },
      ...fields,
    },
    { ...baseSchemaOptions, minimize: false },
  );
  schema.index({ client_id: 1, slug: 1 }, { unique: true });
  schema.plugin(tenantOwned);
  return schema;
}

/**
 * Records that are published: a draft → published state, and a revision that every change raises (deploy-hook
 * ids use it).
 */
export const publishableFields = {
  status: { type: String, enum: ['draft', 'published'], default: 'draft' },
  published_at: { type: Date, default: null },
  revision: { type: Number, default: 1 },
  published_revision: { type: Number, default: null },
  seo_title: { type: String, default: null },
  seo_description: { type: String, default: null },
  og_image_url: { type: String, default: null },
} as const;

/** Fields every stored content record has. */
export interface ContentBase {
  _id: string;
  client_id: string;
  slug: string;
  created_at: Date;
  updated_at: Date;
}

export interface PublishableBase extends ContentBase {
  status: 'draft' | 'published';
  published_at: Date | null;
  revision: number;
  published_revision: number | null;
  seo_title: string | null;
  seo_description: string | null;
  og_image_url: string | null;
}
