import { Schema, model, type InferSchemaType } from 'mongoose';
import { ROLES } from '../lib/tenancy';
import { baseSchemaOptions, newId } from '../lib/ids';

/** A dashboard user. Passwords are stored only as scrypt hashes. */
const userSchema = new Schema(
  {
    _id: { type: String, default: newId },
    email: { type: String, required: true, unique: true },
    role: { type: String, enum: ROLES, required: true },
    client_id: { type: String, default: null },
    permissions: { type: [String], default: [] },
    is_active: { type: Boolean, default: true },
    password_hash: { type: String, default: null },
  },
  baseSchemaOptions,
);

export type UserDoc = InferSchemaType<typeof userSchema> & { _id: string; created_at: Date; updated_at: Date };
export const UserModel = model('User', userSchema, 'users');

/** One-use password-reset tokens, kept as hashes. */
const resetSchema = new Schema(
  {
    token_hash: { type: String, required: true, unique: true },
    user_id: { type: String, required: true },
    expires_at: { type: Date, required: true },
    used_at: { type: Date, default: null },
  },
  baseSchemaOptions,
);
export const PasswordResetModel = model('PasswordReset', resetSchema, 'password_resets');
