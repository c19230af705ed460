import { Schema, model } from 'mongoose';
import { isDuplicateKeyError } from './errors';

/**
 * One-time claims ("this reset token has been used"). A conditional update is atomic on MongoDB but
 * not on the devstack's FerretDB, where concurrent updates of one document can all succeed; an insert
 * under a unique _id is atomic on both. So whatever must happen at most once claims a key here first.
 */
const claimSchema = new Schema(
  { _id: { type: String, required: true }, claimed_at: { type: Date, default: () => new Date() } },
  { versionKey: false },
);
const ClaimModel = model('Claim', claimSchema, 'claims');

/** True for the first caller that claims `key`, false for every later or concurrent one. */
export async function claimOnce(key: string): Promise<boolean> {
  try {
    await ClaimModel.create({ _id: key });
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

/** True once `key` has been claimed (a check before costly work; claimOnce stays the decision). */
export async function isClaimed(key: string): Promise<boolean> {
  return (await ClaimModel.exists({ _id: key })) !== null;
}
