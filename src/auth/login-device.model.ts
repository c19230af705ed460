import { Schema, model } from 'mongoose';
import { baseSchemaOptions, newId } from '../lib/ids';

/**
 * A device (a browser, a client) that logged in to an account: what its device cookie stands for. The cookie's value
 * is never stored, only its SHA-256; `account` is the hash of the e-mail it logged in with, so the cookie counts
 * only for that account.
 */
const loginDeviceSchema = new Schema(
  {
    _id: { type: String, default: newId },
    token_hash: { type: String, required: true, unique: true },
    user_id: { type: String, required: true },
    account: { type: String, required: true },
    expires_at: { type: Date, required: true },
  },
  baseSchemaOptions,
);
loginDeviceSchema.index({ user_id: 1, expires_at: -1 });

export const LoginDeviceModel = model('LoginDevice', loginDeviceSchema, 'login_devices');
