import { randomToken, sha256 } from '../lib/crypto';
import { LoginDeviceModel } from './login-device.model';

/** The device cookie (OWASP's "device cookies"): which device logged in to an account before. */
export const DEVICE_COOKIE = 'lead_device';
/** Sent back to the login operation only: no other request carries it (nor its logs). */
export const DEVICE_COOKIE_PATH = '/api/v1/auth/login';
const DEVICE_PREFIX = 'ldv_';

/** A device recognised by its cookie, for the account it logged in to. */
export interface KnownDevice {
  id: string;
  tokenHash: string;
}

const isWellFormed = (token: string) => token.startsWith(DEVICE_PREFIX) && token.length <= 64;

/**
 * The login devices of every account (the auth area owns them): recognised by the cookie a successful login left,
 * renewed at each login from them, forgotten when the user's password is set or reset. A user keeps `perUser`
 * devices, those of the most recent logins: a client that keeps no cookie (a script) makes a new device at each
 * login, and the oldest go (they are then unknown again, the safe side).
 */
export function loginDevices({ lifetimeSeconds, perUser }: { lifetimeSeconds: number; perUser: number }) {
  const expiry = () => new Date(Date.now() + lifetimeSeconds * 1000);

  async function issue(userId: string, account: string): Promise<string> {
    const token = randomToken(DEVICE_PREFIX, 32);
    await LoginDeviceModel.create({ token_hash: sha256(token), user_id: userId, account, expires_at: expiry() });
    const kept = await LoginDeviceModel.find({ user_id: userId, expires_at: { $gt: new Date() } })
      .sort({ expires_at: -1 })
      .select({ _id: 1 })
      .limit(perUser)
      .lean<{ _id: string }[]>();
    await LoginDeviceModel.deleteMany({ user_id: userId, _id: { $nin: kept.map((d) => d._id) } });
    return token;
  }

  return {
    lifetimeSeconds,

    /** The device `token` names, when it is unexpired and logged in to `account` (else it is an unknown device). */
    async recognise(token: string | undefined, account: string): Promise<KnownDevice | null> {
      if (!token || !isWellFormed(token)) return null;
      const tokenHash = sha256(token);
      const device = await LoginDeviceModel.findOne({ token_hash: tokenHash, expires_at: { $gt: new Date() } }).lean<{
        _id: string;
        account: string;
      }>();
      return device?.account === account ? { id: device._id, tokenHash } : null;
    },

    /**
     * The cookie for the device after a successful login: a recognised device's record gets a new value (a copy of
     * the old one, taken before this login, is worth nothing from now on) and a new lifetime; another device gets a
     * record of its own.
     */
    async afterLogin(device: KnownDevice | null, userId: string, account: string): Promise<string> {
      if (!device) return issue(userId, account);
      const token = randomToken(DEVICE_PREFIX, 32);
      const renewed = await LoginDeviceModel.updateOne(
        { _id: device.id, token_hash: device.tokenHash },
        { token_hash: sha256(token), expires_at: expiry() },
      );
      // Renewed meanwhile by a login of the same device (two tabs): this one gets a device of its own.
      return renewed.modifiedCount ? token : issue(userId, account);
    },
  };
}

export type LoginDevices = ReturnType<typeof loginDevices>;
