import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { AppError } from '../lib/errors';
import { randomToken, sha256 } from '../lib/crypto';
import type { Clock } from '../lib/clock';
import { distinctWindowCount, fixedWindowLimit, type FixedWindow, type WindowCount } from '../lib/rate-limit';
import type { AgentUserLimits, Caller, RevocationReason, Role } from '../lib/tenancy';
import type { ClientsService } from '../clients/clients.service';
import type { UsersService } from '../users/users.service';
import { userDirectory, type UserDoc } from '../users/user-directory';
import { clientDirectory } from '../clients/client-directory';
import { agentTokens } from '../agents/agent-tokens';
import type { TokenCache } from './token-cache';
import { SessionModel } from './session.model';
import type { KnownDevice, LoginDevices } from './login-devices';
import { ACCESS_TOKEN_PREFIX, isWellFormedAccessToken } from '../agents/token-format';

export const SESSION_PREFIX = 'lss_';
export const SESSION_COOKIE = 'lead_session';

function userCaller(user: UserDoc, sessionId?: string): Caller {
  return {
    kind: 'user',
    role: user.role as Role,
    clientId: user.client_id ?? null,
    userId: user._id,
    email: user.email,
    permissions: user.permissions,
    scopes: null,
    brandIds: [],
    sessionId,
    credentialId: sessionId ? `session:${sessionId}` : undefined,
  };
}

/** A triple is valid until something changes its client: cached entries are bounded by the cache's TTL and epoch. */
const NO_EXPIRY = new Date(8.64e15);

export interface AuthDeps {
  clients: Pick<ClientsService, 'verifyTriple'>;
  users: Pick<UsersService, 'verifyLogin'>;
  sessionTtlSeconds: number;
  credentialCache: TokenCache<Caller>;
  redis: Redis;
  /** Failed logins allowed per account, and per account and address, in one window; past it, 429. */
  loginFailures: FixedWindow;
  /**
   * Distinct accounts that may fail from one address in that window (the credential-stuffing guard); past it,
   * the address may try no further account, but an account that logged in from it lately still gets in.
   */
  loginAccountsPerAddress: number;
  /** The devices accounts logged in from (their device cookies); each has its own `loginFailures` limit. */
  devices: LoginDevices;
  /** Which window the limits count in (src/lib/clock.ts); the system clock unless a test moves it. */
  clock?: Clock;
}

/** How long a successful login makes its address known for the account (the guards then let it through). */
export const KNOWN_LOGIN_ADDRESS_SECONDS = 30 * 24 * 3600;

/** Whether a user's or token's client still lets it in (a super_admin's access does not hang on a client). */
async function clientIsActive(clientId: string | null | undefined): Promise<boolean> {
  if (!clientId) return true;
  return clientDirectory.isActive(clientId);
}

export function createAuthService(deps: AuthDeps) {
  const cache = deps.credentialCache;
  const failuresByAccount = fixedWindowLimit(deps.redis, 'login-failures:account', deps.loginFailures, deps.clock);
  const failuresByPair = fixedWindowLimit(deps.redis, 'login-failures:account-address', deps.loginFailures, deps.clock);
  const accountsByAddress = distinctWindowCount(
    deps.redis,
    'login-failures:address-accounts',
    deps.loginFailures,
    deps.clock,
  );
  const failuresByDevice = fixedWindowLimit(deps.redis, 'login-failures:device', deps.loginFailures, deps.clock);
  const knownKey = (account: string, address: string) => `login-known:${account}:${address}`;
  const max = deps.loginFailures.max;
  const refuse = (over: WindowCount[]) =>
    AppError.tooManyRequests(
      'Too many failed logins; try again later',
      Math.max(...over.map((c) => c.retryAfterSeconds)),
    );

  /**
   * An attempt from a device the account logged in from counts against that device alone: nobody without its cookie
   * (an attacker elsewhere, or behind the same address) can use it up. Answers how to take the attempt back.
   */
  async function countDeviceAttempt(device: KnownDevice): Promise<() => Promise<unknown>> {
    const byDevice = await failuresByDevice.hit(device.id);
    if (byDevice.count > max) throw refuse([byDevice]);
    return () => failuresByDevice.undo(device.id);
  }

  /**
   * An attempt from an unknown device counts against the account, the account at this address and the address's
   * distinct accounts; an address the account logged in from lately is held by the account-and-address limit only.
   * Answers how to take the attempt back.
   */
  async function countUnknownAttempt(account: string, address: string): Promise<() => Promise<unknown>> {
    const pairSubject = `${account}:${address}`;
    const [byAccount, byPair, byAddress, known] = await Promise.all([
      failuresByAccount.hit(account),
      failuresByPair.hit(pairSubject),
      accountsByAddress.add(address, account),
      deps.redis.exists(knownKey(account, address)),
    ]);
    const over: WindowCount[] = [byPair].filter((c) => c.count > max);
    if (!known) {
      if (byAccount.count > max) over.push(byAccount);
      if (byAddress.count > deps.loginAccountsPerAddress) over.push(byAddress);
    }
    if (over.length) {
      if (byAddress.added) await accountsByAddress.forget(address, account); // a refusal checked nothing
      throw refuse(over);
    }
    return () =>
      Promise.all([
        failuresByAccount.undo(account),
        failuresByPair.undo(pairSubject),
        accountsByAddress.forget(address, account),
      ]);
  }

  function sessionCaller(token: string): Promise<Caller | null> {
    const tokenHash = sha256(token);
    return cache.lookup(tokenHash, async () => {
      const session = await SessionModel.findOne({
        token_hash: tokenHash,
        revoked_at: null,
        expires_at: { $gt: new Date() },
      }).lean<{ _id: string; user_id: string; expires_at: Date }>();
      if (!session) return null;
      const user = await userDirectory.find(session.user_id);
      if (!user?.is_active) return null;
      if (user.role !== 'super_admin' && !(await clientIsActive(user.client_id))) return null;
      return { value: userCaller(user, session._id), expiresAt: session.expires_at };
    });
  }

  /**
   * last_used_at is written at most once a minute per token and process, never on every request: a token is
   * remembered for the minute after its write (the least recently used forgotten first when 10,000 are).
   */
  const lastUsedWrites = new LRUCache<string, true>({ max: 10_000, ttl: 60_000 });
  function touch(tokenId: string, clientId: string) {
    if (lastUsedWrites.has(tokenId)) return;
    const now = Date.now();
    lastUsedWrites.set(tokenId, true);
    // A lost race of two upserts is a duplicate key: the next request tries again.
    agentTokens.recordUse(tokenId, clientId, new Date(now)).catch(() => lastUsedWrites.delete(tokenId));
  }

  async function accessTokenCaller(token: string): Promise<Caller | null> {
    if (!isWellFormedAccessToken(token)) return null; // a mistyped token fails its checksum: no lookup
    const tokenHash = sha256(token);
    const caller = await cache.lookup(tokenHash, async () => {
      const doc = await agentTokens.usableByHash(tokenHash);
      if (!doc || !(await clientIsActive(doc.client_id))) return null;
      // Its limits travel with it (cached with it; revoking or rotating invalidates both).
      const agentUsers: AgentUserLimits[] = await agentTokens.agentUserLimits(doc.client_id, doc._id);
      const value: Caller = {
        kind: 'agent',
        role: 'client_user',
        clientId: doc.client_id,
        userId: null,
        email: doc.owner_email ?? null,
        permissions: [],
        scopes: doc.scopes,
        brandIds: doc.brand_ids,
        tokenId: doc._id,
        accessToken: doc,
        agentUsers,
        credentialId: `token:${doc._id}`,
      };
      return { value, expiresAt: doc.expires_at };
    });
    if (caller) touch(caller.tokenId!, caller.clientId!);
    return caller;
  }

  /** Keyed by the hash of the whole triple, so a wrong secret never meets a cached entry. */
  function tripleCaller(token: string): Promise<Caller | null> {
    const [clientId, apiKey, apiSecret] = token.split(':');
    return cache.lookup(sha256(token), async () => {
      const client = await deps.clients.verifyTriple(clientId, apiKey, apiSecret);
      if (!client) return null;
      const value: Caller = {
        kind: 'client',
        role: 'client_user',
        clientId: client._id,
        userId: null,
        email: null,
        permissions: [],
        scopes: null,
        brandIds: [],
        credentialId: `triple:${client._id}:${client.api_key_hash.slice(0, 32)}`,
      };
      return { value, expiresAt: NO_EXPIRY };
    });
  }

  return {
    /** Resolves any bearer credential by its shape: a triple, a session token or an access token. */
    async resolve(token: string): Promise<Caller | null> {
      if (token.startsWith(SESSION_PREFIX)) return sessionCaller(token);
      if (token.startsWith(ACCESS_TOKEN_PREFIX)) return accessTokenCaller(token);
      if (token.split(':').length === 3) return tripleCaller(token);
      return null;
    },

    /**
     * Why a credential that resolved before no longer does, read from the store (a stream it opened says so as
     * it ends). Only asked once resolve() has answered null.
     */
    async whyRefused(token: string): Promise<RevocationReason> {
      const tokenHash = sha256(token);
      const now = new Date();
      if (token.startsWith(SESSION_PREFIX)) {
        const session = await SessionModel.findOne({ token_hash: tokenHash }).lean<{
          user_id: string;
          revoked_at: Date | null;
          expires_at: Date;
        }>();
        if (!session || session.revoked_at) return 'session_ended';
        if (session.expires_at <= now) return 'expired';
        const user = await userDirectory.find(session.user_id);
        if (!user?.is_active) return 'user_deactivated';
        return user.role !== 'super_admin' && !(await clientIsActive(user.client_id))
          ? 'client_deactivated'
          : 'session_ended';
      }
      if (token.startsWith(ACCESS_TOKEN_PREFIX)) {
        const doc = await agentTokens.byHash(tokenHash);
        if (!doc || doc.revoked_at) return 'token_revoked';
        return doc.expires_at <= now ? 'expired' : 'client_deactivated';
      }
      return (await clientIsActive(token.split(':')[0])) ? 'credentials_regenerated' : 'client_deactivated';
    },

    /**
     * Every attempt counts before the password is checked (so a burst is cut off at once, before any hashing),
     * and a successful one is taken back: what remains are failures. docs/security.md, "Login":
     * - from a device that logged in to the account before (its device cookie, `deviceToken`): the device's own
     *   `loginFailures.max` failures, then 429 for that cookie; nothing else counts or refuses it;
     * - from an unknown device: the account, and the account from this address, `loginFailures.max` failures,
     *   then 429 even for the right password (guessing at one account); and the address, `loginAccountsPerAddress`
     *   distinct accounts failed, then no further account may be tried from it (credential stuffing). An address
     *   the account logged in from lately is known: only its account-and-address limit holds there.
     * The same 429 whether or not the account exists. A successful login renews the device's cookie, or gives the
     * device one.
     */
    async login(email: string, password: string, address: string, deviceToken?: string) {
      const account = sha256(email.toLowerCase());
      const device = await deps.devices.recognise(deviceToken, account);
      const takeBack = device ? await countDeviceAttempt(device) : await countUnknownAttempt(account, address);
      const user = await deps.users.verifyLogin(email, password);
      if (!user) throw AppError.unauthorized('Invalid e-mail or password');
      const [renewedDevice] = await Promise.all([
        deps.devices.afterLogin(device, user._id, account),
        takeBack(),
        deps.redis.set(knownKey(account, address), '1', 'EX', KNOWN_LOGIN_ADDRESS_SECONDS),
      ]);
      const access_token = randomToken(SESSION_PREFIX, 32);
      const expires = new Date(Date.now() + deps.sessionTtlSeconds * 1000);
      await SessionModel.create({ token_hash: sha256(access_token), user_id: user._id, expires_at: expires });
      return {
        session: {
          access_token,
          token_type: 'bearer' as const,
          expires_at: expires.toISOString(),
          user: { user_id: user._id, email: user.email, role: user.role as Role, client_id: user.client_id ?? null },
        },
        /** The device cookie's new value. */
        deviceToken: renewedDevice,
      };
    },

    async logout(sessionId: string | undefined) {
      if (!sessionId) throw AppError.badRequest('Only a login session can be logged out');
      await SessionModel.updateOne({ _id: sessionId }, { revoked_at: new Date() });
      await cache.invalidate();
      return { logged_out: true };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
