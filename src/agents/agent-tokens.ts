import { AccessTokenModel, AccessTokenUsageModel, type AccessTokenDoc } from './access-token.model';
import { agentUserLimitsOf } from './agent-user.model';

export type { AccessTokenDoc };

/**
 * What other areas read of the agents' access tokens (the agents area issues and owns them): a token by the hash
 * of what its bearer presented, its agent users' limits, its last use, and the counts the admin reports show.
 */
export const agentTokens = {
  /** The token with this SHA-256, when it is neither revoked nor expired. */
  usableByHash(tokenHash: string): Promise<AccessTokenDoc | null> {
    return AccessTokenModel.findOne(
      { token_hash: tokenHash, revoked_at: null, expires_at: { $gt: new Date() } },
      null,
      { allTenants: true }, // the token itself names its tenant
    )
      .lean<AccessTokenDoc>()
      .exec();
  },

  /** The token with this SHA-256, revoked and expired ones too (to say why it no longer works). */
  byHash(tokenHash: string): Promise<AccessTokenDoc | null> {
    return AccessTokenModel.findOne({ token_hash: tokenHash }, null, { allTenants: true })
      .lean<AccessTokenDoc>()
      .exec();
  },

  /** The limits of the token's active agent users (what authentication attaches to the agent's caller). */
  agentUserLimits: agentUserLimitsOf,

  /** Notes a use, never on the token document itself (see AccessTokenUsageModel). */
  async recordUse(tokenId: string, clientId: string, at: Date): Promise<void> {
    await AccessTokenUsageModel.updateOne(
      { _id: tokenId, client_id: clientId },
      { $set: { last_used_at: at } },
      { upsert: true },
    );
  },

  /** Tokens issued in [start, end) (one per approved request), of one client or of all. */
  issuedIn(tenant: { filter: object; options: object }, start: Date, end: Date): Promise<number> {
    return AccessTokenModel.countDocuments({ ...tenant.filter, created_at: { $gte: start, $lt: end } })
      .setOptions(tenant.options)
      .exec();
  },

  /** Tokens usable at `now`: neither revoked nor expired. */
  usableAt(tenant: { filter: object; options: object }, now: Date): Promise<number> {
    return AccessTokenModel.countDocuments({ ...tenant.filter, revoked_at: null, expires_at: { $gt: now } })
      .setOptions(tenant.options)
      .exec();
  },
};
