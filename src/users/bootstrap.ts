import fs from 'node:fs';
import path from 'node:path';
import { hashPassword, needsRehash, verifyPassword } from '../lib/crypto';
import { isDuplicateKeyError } from '../lib/errors';
import type { Logger } from '../lib/logger';
import { generatePassword } from './users.service';
import { UserModel, type UserDoc } from './user.model';

export interface BootstrapResult {
  email: string;
  /** Present only when this start created the development admin: the one time its password is shown. */
  newPassword?: string;
  passwordFile?: string;
  action: 'created' | 'updated' | 'unchanged';
}

/** Makes sure a super_admin with this login exists and can sign in with this password. Idempotent. */
export async function ensureSuperAdmin(email: string, password: string): Promise<BootstrapResult['action']> {
  const normalised = email.toLowerCase();
  const existing = await UserModel.findOne({ email: normalised }).lean<UserDoc>();
  if (!existing) {
    try {
      await UserModel.create({ email: normalised, role: 'super_admin', password_hash: await hashPassword(password) });
      return 'created';
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // else another process created it first
      return 'unchanged';
    }
  }
  const update: Record<string, unknown> = {};
  if (existing.role !== 'super_admin') update.role = 'super_admin';
  if (!existing.is_active) update.is_active = true;
  const stored = existing.password_hash;
  if (!stored || needsRehash(stored) || !(await verifyPassword(password, stored))) {
    update.password_hash = await hashPassword(password);
  }
  if (Object.keys(update).length === 0) return 'unchanged';
  await UserModel.updateOne({ _id: existing._id }, update);
  return 'updated';
}

const DEV_ADMIN_EMAIL = 'admin@localhost';

/**
 * BOOTSTRAP_ADMIN_EMAIL/PASSWORD when set; otherwise, on the local default only, a development admin
 * whose generated password is kept in the data directory (mode 600) and shown once, when created.
 */
export async function bootstrapAdmin(opts: {
  email?: string;
  password?: string;
  localDefault: boolean;
  dataDir: string;
  logger: Logger;
}): Promise<BootstrapResult | null> {
  if (opts.email && opts.password) {
    const action = await ensureSuperAdmin(opts.email, opts.password);
    opts.logger.info({ email: opts.email.toLowerCase(), action }, 'bootstrap admin ensured');
    return { email: opts.email.toLowerCase(), action };
  }
  if (!opts.localDefault) return null;
  const passwordFile = path.join(opts.dataDir, 'dev-admin.json');
  const stored = readDevAdmin(passwordFile);
  const password = stored?.password ?? generatePassword();
  if (!stored) {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    fs.writeFileSync(passwordFile, JSON.stringify({ email: DEV_ADMIN_EMAIL, password }, null, 2), { mode: 0o600 });
  }
  const action = await ensureSuperAdmin(DEV_ADMIN_EMAIL, password);
  return { email: DEV_ADMIN_EMAIL, action, passwordFile, newPassword: stored ? undefined : password };
}

function readDevAdmin(file: string): { email: string; password: string } | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
