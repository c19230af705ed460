import { Schema, model, type InferSchemaType } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';
import { tenantOwned } from '../lib/tenancy';

const rendition = new Schema(
  { storage_key: { type: String, required: true }, content_type: String, size: Number, etag: String },
  { _id: false },
);

/** A stored media file of one tenant (a business photo); the bytes are in MediaStorage under storage_key. */
const mediaSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    content_type: { type: String, required: true },
    size: { type: Number, required: true },
    /** Quoted strong entity tag: a digest of the bytes. */
    etag: { type: String, required: true },
    filename: { type: String, default: null },
    storage_key: { type: String, required: true },
    /** The 400 px thumbnail, once made. */
    thumb: { type: rendition, default: null },
  },
  baseSchemaOptions,
);
mediaSchema.index({ client_id: 1, _id: 1 });
mediaSchema.plugin(tenantOwned);

export type MediaDoc = InferSchemaType<typeof mediaSchema> & { _id: string; created_at: Date };
export const MediaModel = model('Media', mediaSchema, 'media');
