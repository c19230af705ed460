import { sha256 } from '../lib/crypto';
import type { AgentLimitValues } from '../../workflows/access-request-api';
import { isDuplicateKeyError } from '../lib/errors';
import { AccessTokenModel } from './access-token.model';
import { tokenPrefix } from './token-format';

export interface TokenGrant extends AgentLimitValues {
  token_id: string;
  client_id: string;
  scopes: string[];
  brand_ids: number[];
  ttl_hours: number;
  owner_email: string | null;
  project_name: string;
  multi_brand: boolean;
  fingerprint: Record<string, unknown>;
  request_id: string;
}

/** Stores a token under its id (only its hash); storing the same id again changes nothing, so retries issue it once. */
export async function storeToken(grant: TokenGrant, plaintext: string, expiresAt: Date): Promise<void> {
  try {
    await AccessTokenModel.create({
      _id: grant.token_id,
      ...grant,
      token_hash: sha256(plaintext),
      token_prefix: tokenPrefix(plaintext),
      expires_at: expiresAt,
    });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}
