import type { Role } from '../lib/tenancy';
import { UserModel, type UserDoc } from './user.model';

export type { UserDoc };

/**
 * What other areas read of the dashboard users (the users area owns their records): a user by id, a client's
 * active brand_admins (who receive its digests and approval e-mails), and users' addresses.
 */
export const userDirectory = {
  find(userId: string): Promise<UserDoc | null> {
    return UserModel.findById(userId).lean<UserDoc>().exec();
  },

  /** The client's active brand_admin users. */
  async activeBrandAdmins(clientId: string): Promise<{ user_id: string; email: string }[]> {
    const admins = await UserModel.find(
      { client_id: clientId, role: 'brand_admin', is_active: true },
      { email: 1 },
    ).lean<{ _id: string; email: string }[]>();
    return admins.map((a) => ({ user_id: a._id, email: a.email }));
  },

  /** The active brand_admin with this address (lower case), if any, and their client. */
  async activeBrandAdminByEmail(email: string): Promise<{ user_id: string; client_id: string | null } | null> {
    const admin = await UserModel.findOne({ email, role: 'brand_admin', is_active: true }, { client_id: 1 }).lean<{
      _id: string;
      client_id: string | null;
    }>();
    return admin && { user_id: admin._id, client_id: admin.client_id };
  },

  async isActiveBrandAdmin(userId: string, clientId: string): Promise<boolean> {
    return (
      (await UserModel.exists({ _id: userId, client_id: clientId, role: 'brand_admin', is_active: true })) !== null
    );
  },

  /** How a user is named in the activity log. */
  async actor(userId: string): Promise<{ email: string; role: Role } | null> {
    return UserModel.findById(userId, { email: 1, role: 1 }).lean<{ email: string; role: Role }>().exec();
  },

  /** The addresses of those of `userIds` that are active. */
  async activeEmails(userIds: string[]): Promise<string[]> {
    if (!userIds.length) return [];
    const users = await UserModel.find({ _id: { $in: userIds }, is_active: true }, { email: 1 }).lean<
      { email: string }[]
    >();
    return users.map((u) => u.email);
  },

  /** The user with this address (any case), active or not. */
  findByEmail(email: string): Promise<UserDoc | null> {
    return UserModel.findOne({ email: email.toLowerCase() }).lean<UserDoc>().exec();
  },

  /** Each of `userIds`' address, active or not. */
  async emails(userIds: string[]): Promise<Map<string, string>> {
    const users = await UserModel.find({ _id: { $in: userIds } }, { email: 1 }).lean<
      { _id: string; email: string }[]
    >();
    return new Map(users.map((u) => [u._id, u.email]));
  },
};
