import { BrandMemberModel, BrandModel } from './brand.model';
import { SETTINGS_DEFAULTS } from './brand.views';

/**
 * What other areas read or change of the brands and their members (the brands area owns their records): a
 * client's active brands and their names, who manages a brand, and users' memberships.
 */
export const brandDirectory = {
  /** The client's active brands, oldest (lowest id) first. */
  async activeBrandIds(clientId: string): Promise<number[]> {
    const rows = await BrandModel.find({ client_id: clientId, is_active: true }, { _id: 1 })
      .sort({ _id: 1 })
      .lean<{ _id: number }[]>();
    return rows.map((b) => b._id);
  },

  /** The brands' names, in the order of `ids` (a brand removed since keeps its id as its name). */
  async names(clientId: string, ids: number[]): Promise<{ brand_id: number; name: string }[]> {
    if (!ids.length) return [];
    const rows = await BrandModel.find({ client_id: clientId, _id: { $in: ids } }, { brand_name: 1 }).lean<
      { _id: number; brand_name: string }[]
    >();
    const names = new Map(rows.map((r) => [r._id, r.brand_name]));
    return ids.map((id) => ({ brand_id: id, name: names.get(id) ?? `brand ${id}` }));
  },

  /**
   * The requests per minute offered to an agent of these brands that asked for no limit: their settings'
   * default_rate_limit, the lowest when they differ (an offer never passes a brand's default); null when none is
   * set above 0 (0 offers no limit), or for no brand.
   */
  async agentRateLimitDefault(clientId: string, ids: number[]): Promise<number | null> {
    if (!ids.length) return null;
    const rows = await BrandModel.find({ client_id: clientId, _id: { $in: ids } }, { settings: 1 }).lean<
      { settings?: { default_rate_limit?: number } }[]
    >();
    const defaults = rows
      .map((r) => r.settings?.default_rate_limit ?? SETTINGS_DEFAULTS.default_rate_limit)
      .filter((rpm) => rpm > 0);
    return defaults.length ? Math.min(...defaults) : null;
  },

  /** The users who own or administer the brand. */
  async managers(clientId: string, brandId: number): Promise<string[]> {
    const members = await BrandMemberModel.find({
      client_id: clientId,
      brand_id: brandId,
      role: { $in: ['owner', 'admin'] },
    }).lean<{ user_id: string }[]>();
    return members.map((m) => m.user_id);
  },

  /** Every membership of these users, in every client, by brand id. */
  membershipsOf(userIds: string[]): Promise<{ user_id: string; brand_id: number; role: string }[]> {
    return BrandMemberModel.find({ user_id: { $in: userIds } }, { user_id: 1, brand_id: 1, role: 1 })
      .sort({ brand_id: 1 })
      .setOptions({ allTenants: true })
      .lean<{ user_id: string; brand_id: number; role: string }[]>()
      .exec();
  },

  /** Ends the user's memberships: those in one client (the user moved away from it), or all of them. */
  async dropMemberships(userId: string, clientId?: string): Promise<void> {
    if (clientId) await BrandMemberModel.deleteMany({ user_id: userId, client_id: clientId });
    else await BrandMemberModel.deleteMany({ user_id: userId }).setOptions({ allTenants: true });
  },
};
