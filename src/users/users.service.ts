import { randomInt } from 'node:crypto';
import type Redis from 'ioredis';
import type { JsonBody, QueryParams } from '../lib/contract-types';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import { hashPassword, needsRehash, randomToken, sha256, verifyPassword } from '../lib/crypto';
import { claimOnce } from '../lib/claims';
import { iso } from '../lib/ids';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import type { Clock } from '../lib/clock';
import { fixedWindows } from '../lib/rate-limit';
import type { Role } from '../lib/tenancy';
import type { Notifier } from '../notifications/notifier';
import { clientDirectory } from '../clients/client-directory';
import { PasswordResetModel, UserModel, type UserDoc } from './user.model';
import type { CreatorGone } from '../watches/watch-creators';
import { brandDirectory } from '../brands/brand-directory';
import { sessionStore } from '../auth/sessions';

export function toDashboardUser(doc: UserDoc) {
  return {
    user_id: doc._id,
    email: doc.email,
    role: doc.role as Role,
    client_id: doc.client_id ?? null,
    permissions: doc.permissions,
    is_active: doc.is_active,
    created_at: iso(doc.created_at),
    updated_at: iso(doc.updated_at),
    brands: [] as { brand_id: number; role: string }[],
  };
}

/** Each user's brand memberships, for the dashboard user list (one query for the page). */
async function withMemberships(users: ReturnType<typeof toDashboardUser>[]) {
  const rows = await brandDirectory.membershipsOf(users.map((u) => u.user_id));
  for (const u of users)
    u.brands = rows.filter((r) => r.user_id === u.user_id).map((r) => ({ brand_id: r.brand_id, role: r.role }));
  return users;
}

const PASSWORD_ALPHABETS = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '!@#$%^&*-_=+?'];

/** 16 characters from a CSPRNG with at least one upper, lower, digit and symbol, in random order. */
export function generatePassword(length = 16): string {
  const all = PASSWORD_ALPHABETS.join('');
  const chars = PASSWORD_ALPHABETS.map((a) => a[randomInt(a.length)]);
  while (chars.length < length) chars.push(all[randomInt(all.length)]);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}

/** `invalidateCredentials`: after a write that may take access away, so no process keeps serving a cached login. */
export function createUsersService(deps: {
  notifier: Notifier;
  publicBaseUrl: string;
  resetTtlSeconds: number;
  invalidateCredentials: () => Promise<void>;
  /** Pauses the watches of a user who can no longer act in a client (docs/watches.md). */
  creatorGone?: (gone: CreatorGone) => Promise<void>;
  /** Where the "forgot your password?" requests are counted (shared by every API process). */
  redis: Redis;
  /** Reset e-mails per account, and requests per client address, allowed in one hour. */
  resetRequests: { perAccount: number; perAddress: number };
  /** Which window the limits count in (src/lib/clock.ts); the system clock unless a test moves it. */
  clock?: Clock;
}) {
  const resetRequestWindows = fixedWindows(deps.redis, 'password-reset-requests', deps.clock);
  async function getUser(userId: string): Promise<UserDoc> {
    const doc = await UserModel.findById(userId).lean<UserDoc>();
    if (!doc) throw AppError.notFound('User not found');
    return doc;
  }

  async function checkClient(role: Role, clientId: string | null | undefined) {
    if (role === 'super_admin') return;
    if (!clientId)
      throw AppError.invalid('client_id is required for this role', [
        { location: 'body', field: 'client_id', message: `required for role ${role}` },
      ]);
    if (!(await clientDirectory.exists(clientId)))
      throw AppError.invalid('Unknown client', [{ location: 'body', field: 'client_id', message: 'no such client' }]);
  }

  /**
   * After a password change: ends the user's sessions (but `keep`, the one that made the change) on every process at
   * once, and forgets the devices they logged in from (docs/security.md, "Login").
   */
  async function passwordChanged(userId: string, keep?: string) {
    await sessionStore.endFor(userId, keep);
    await sessionStore.forgetDevicesOf(userId);
    await deps.invalidateCredentials();
  }

  /** A link that lets the user choose a password of their own (valid for the reset lifetime), and its message key. */
  async function resetLink(userId: string) {
    const token = randomToken('lrt_', 32);
    const expires = new Date(Date.now() + deps.resetTtlSeconds * 1000);
    await PasswordResetModel.create({ token_hash: sha256(token), user_id: userId, expires_at: expires });
    const link = `${deps.publicBaseUrl}/reset-password?token=${encodeURIComponent(token)}`;
    return { link, expires, key: `password-reset-${sha256(token).slice(0, 32)}` };
  }

  return {
    getUser,

    async create(input: JsonBody<'createDashboardUser'>) {
      await checkClient(input.role, input.client_id);
      try {
        const doc = await UserModel.create({
          ...(input.user_id ? { _id: input.user_id } : {}),
          email: input.email.toLowerCase(),
          role: input.role,
          client_id: input.role === 'super_admin' ? (input.client_id ?? null) : input.client_id,
          permissions: input.permissions ?? [],
          password_hash: input.password ? await hashPassword(input.password) : null,
        });
        return toDashboardUser(doc.toObject() as UserDoc);
      } catch (err) {
        if (isDuplicateKeyError(err)) throw AppError.conflict('A user with this e-mail or user_id already exists');
        throw err;
      }
    },

    async list(filter: Pick<QueryParams<'listDashboardUsers'>, 'role' | 'search'>, page: Page) {
      const query: Record<string, unknown> = {};
      if (filter.role) query.role = filter.role;
      if (filter.search) query.email = { $regex: filter.search.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' };
      const { docs, total } = await findPage<UserDoc>(
        UserModel,
        { filter: query, sort: { created_at: -1, _id: 1 } },
        page,
      );
      return pageEnvelope('users', await withMemberships(docs.map(toDashboardUser)), total, page);
    },

    async update(userId: string, patch: JsonBody<'updateDashboardUser'>) {
      const current = await getUser(userId);
      await checkClient(
        patch.role ?? (current.role as Role),
        patch.client_id === undefined ? current.client_id : patch.client_id,
      );
      const doc = await UserModel.findByIdAndUpdate(userId, patch, { returnDocument: 'after' }).lean<UserDoc>();
      // Deactivating ends the sessions, not only suspends them: reactivated, the user signs in again.
      if (patch.is_active === false) await sessionStore.endFor(userId);
      await deps.invalidateCredentials(); // role, client, permissions and is_active live in cached callers
      // Memberships are of one client's brands: a user moved elsewhere keeps none of them (nor regains them on
      // moving back).
      if (current.client_id && doc!.client_id !== current.client_id) {
        await brandDirectory.dropMemberships(userId, current.client_id);
      }
      // A user deactivated runs nothing any more, nor one moved away from the client its watches run in.
      if (patch.is_active === false) await deps.creatorGone?.({ kind: 'user', userId });
      else if (current.client_id && doc!.client_id !== current.client_id)
        await deps.creatorGone?.({ kind: 'user', userId, clientId: current.client_id });
      const [user] = await withMemberships([toDashboardUser(doc!)]);
      return user;
    },

    async remove(userId: string) {
      const doc = await UserModel.findByIdAndUpdate(
        userId,
        { is_active: false },
        { returnDocument: 'after' },
      ).lean<UserDoc>();
      if (!doc) throw AppError.notFound('User not found');
      await sessionStore.endFor(userId);
      await deps.invalidateCredentials();
      await brandDirectory.dropMemberships(userId);
      await deps.creatorGone?.({ kind: 'user', userId });
      return { user_id: userId, removed: true };
    },

    /**
     * Sets a password, ends the user's other sessions and forgets their devices. The optional e-mail never carries
     * the password (mail is stored and forwarded in clear): it says that an administrator set one, and links to a
     * page where the user can choose their own.
     */
    async setPassword(userId: string, password: string, sendEmail: boolean, callerSessionId?: string) {
      const user = await getUser(userId);
      await UserModel.updateOne({ _id: userId }, { password_hash: await hashPassword(password) });
      await passwordChanged(userId, callerSessionId);
      if (sendEmail) {
        const { link, expires, key } = await resetLink(userId);
        await deps.notifier.send(key, {
          channel: 'email',
          to: user.email,
          subject: 'Your dashboard password was set',
          text:
            `An administrator set a new password for ${user.email}; they will tell you what it is.\n\n` +
            `To choose a password of your own instead, open this link (valid until ${expires.toISOString()}):\n${link}`,
        });
      }
      return { user_id: userId, password_set: true, email_sent: sendEmail };
    },

    /**
     * The "forgot your password?" throttle, counted before anything is looked up so that it is the same whether or
     * not the account exists: one hour's requests for this e-mail (by its hash: the address never sits in Redis)
     * and from this client address. All or nothing: a request refused by one limit does not use up the other's
     * allowance. Past either, 429 with Retry-After (the later of the full windows' ends).
     */
    async countResetRequest(email: string, address: string) {
      const hour = (max: number, policy: string) => [{ max, seconds: 3600, policy }];
      const taken = await resetRequestWindows.take([
        { subject: `account:${sha256(email.toLowerCase())}`, windows: hour(deps.resetRequests.perAccount, 'account') },
        { subject: `address:${address}`, windows: hour(deps.resetRequests.perAddress, 'address') },
      ]);
      if (taken.allowed) return;
      const full = taken.windows.filter((w) => w.full);
      const retryAfter = Math.max(...full.map((w) => w.resetSeconds));
      throw AppError.tooManyRequests(
        `Too many password-reset requests ${full.map((w) => `for this ${w.policy}`).join(' and ')}; ` +
          `retry after ${retryAfter} s`,
        retryAfter,
      );
    },

    /** The active dashboard user with this e-mail, if any: who a "forgot your password?" request is for. */
    async resetRecipient(email: string): Promise<string | null> {
      const user = await UserModel.findOne({ email: email.toLowerCase(), is_active: true }, { _id: 1 }).lean<{
        _id: string;
      }>();
      return user?._id ?? null;
    },

    async triggerReset(userId: string) {
      const user = await getUser(userId);
      const { link, expires, key } = await resetLink(userId);
      const delivery = await deps.notifier.send(key, {
        channel: 'email',
        to: user.email,
        subject: 'Reset your dashboard password',
        text: `Open this link to choose a new password (valid until ${expires.toISOString()}):\n${link}`,
        html:
          `<p>Open <a href="${link}">this link</a> to choose a new password ` +
          `(valid until ${expires.toISOString()}).</p>`,
      });
      return { user_id: userId, reset_expires_at: expires.toISOString(), delivery_id: delivery.delivery_id };
    },

    /** Consumes a reset token exactly once, even when the same link is submitted concurrently. */
    async resetPassword(token: string, newPassword: string) {
      const tokenHash = sha256(token);
      const reset = await PasswordResetModel.findOne({
        token_hash: tokenHash,
        used_at: null,
        expires_at: { $gt: new Date() },
      }).lean<{ user_id: string }>();
      if (!reset || !(await claimOnce(`password-reset:${tokenHash}`)))
        throw AppError.unauthorized('Invalid or expired reset token');
      await PasswordResetModel.updateOne({ token_hash: tokenHash }, { used_at: new Date() });
      await UserModel.updateOne({ _id: reset.user_id }, { password_hash: await hashPassword(newPassword) });
      await passwordChanged(reset.user_id);
      return { password_reset: true };
    },

    /** The user these credentials sign in, if any; a hash made with older parameters is replaced on success. */
    async verifyLogin(email: string, password: string): Promise<UserDoc | null> {
      const user = await UserModel.findOne({ email: email.toLowerCase() }).lean<UserDoc>();
      if (!user?.password_hash || !user.is_active) {
        await hashPassword(password); // same work whether or not the account exists
        return null;
      }
      if (!(await verifyPassword(password, user.password_hash))) return null;
      if (user.role !== 'super_admin' && user.client_id && !(await clientDirectory.isActive(user.client_id)))
        return null;
      if (needsRehash(user.password_hash)) {
        await UserModel.updateOne(
          { _id: user._id, password_hash: user.password_hash },
          { password_hash: await hashPassword(password) },
        );
      }
      return user;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
