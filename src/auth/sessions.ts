import { LoginDeviceModel } from './login-device.model';
import { SessionModel } from './session.model';

/**
 * What other areas do to login sessions (the auth area owns them): end a user's sessions when their access
 * changes, forget the devices they logged in from when their password changes, and purge the sessions long ended.
 */
export const sessionStore = {
  /** Ends the user's open sessions, but `keep` (the one that made the change). */
  async endFor(userId: string, keep?: string): Promise<void> {
    await SessionModel.updateMany(
      { user_id: userId, revoked_at: null, ...(keep ? { _id: { $ne: keep } } : {}) },
      { revoked_at: new Date() },
    );
  },

  /**
   * Every device the user logged in from becomes unknown again (its device cookie no longer exempts it from the
   * account's lock): a password set or reset, where a device that knew the old password may be someone else's.
   */
  async forgetDevicesOf(userId: string): Promise<void> {
    await LoginDeviceModel.deleteMany({ user_id: userId });
  },

  /** Removes sessions that expired or were ended before `cutoff`; answers how many. */
  async purgeEndedBefore(cutoff: Date): Promise<number> {
    const { deletedCount } = await SessionModel.deleteMany({
      $or: [{ expires_at: { $lt: cutoff } }, { revoked_at: { $lt: cutoff } }],
    });
    return deletedCount;
  },
};
