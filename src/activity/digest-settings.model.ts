import { Schema, model } from 'mongoose';
import { tenantOwned } from '../lib/tenancy';

export const CADENCES = ['off', 'daily', 'weekly'] as const;
export type Cadence = (typeof CADENCES)[number];

/** A client's digest cadence; `_id` is the client id (one record per client, found through the `_id` index). */
const digestSettingsSchema = new Schema(
  {
    _id: { type: String, required: true },
    client_id: { type: String, required: true },
    cadence: { type: String, enum: CADENCES, required: true },
    last_sent_at: { type: Date, default: null },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);
digestSettingsSchema.plugin(tenantOwned);

export interface DigestSettingsDoc {
  _id: string;
  client_id: string;
  cadence: Cadence;
  last_sent_at: Date | null;
  updated_at: Date;
}

export const DigestSettingsModel = model('DigestSettings', digestSettingsSchema, 'digest_settings');
