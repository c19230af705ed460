import { Schema, model } from 'mongoose';
import { baseSchemaOptions, newId } from '../lib/ids';

/** A login session; the token itself is never stored, only its SHA-256. */
const sessionSchema = new Schema(
  {
    _id: { type: String, default: newId },
    token_hash: { type: String, required: true, unique: true },
    user_id: { type: String, required: true, index: true },
    expires_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
  },
  baseSchemaOptions,
);

export const SessionModel = model('Session', sessionSchema, 'sessions');
