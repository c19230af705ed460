/**
 * A brand's keys written: added, changed (their credentials rotated with them) and removed, under the rule of one
 * primary key per brand, provider and country. Every write makes each process read keys afresh.
 */
import type Redis from 'ioredis';
import type { JsonAnswer, JsonBody, Schemas } from '../lib/contract-types';
import type { KeyRing } from '../lib/crypto';
import { AppError } from '../lib/errors';
import { insertWithNewIntegerId } from '../lib/integer-ids';
import type { RunLocked } from '../lib/locks';
import type { BrandAccess } from '../brands/brand-access';
import { IntegrationModel, type IntegrationDoc } from './integration.model';
import type { KeyCache } from './key-store';
import type { Limits } from './limits';
import {
  PROVIDER_NAMES,
  PROVIDERS,
  maskCredentials,
  templateOf,
  validateCredentials,
  type ProviderName,
} from './providers';
import { findKey, keyView } from './brand-keys';

export interface KeyWriteDeps {
  redis: Redis;
  ring: KeyRing;
  keys: KeyCache;
  limits: Limits;
  lock: RunLocked;
}

type NewKey = JsonBody<'createIntegration'>;
type KeyChanges = JsonBody<'updateIntegration'>;
type SpendSettings = Pick<KeyChanges, 'spend_limit_amount' | 'spend_limit_period' | 'spend_limit_action'>;

/** The fields a change sets as given. */
const PLAIN_FIELDS = [
  'key_label',
  'daily_limit',
  'minute_limit',
  'is_primary',
  'is_active',
  'country_code',
  'share_with_pool',
] as const;

/** Spend settings as stored: an amount without a period counts monthly, without an action notifies. */
function spendSettings(b: SpendSettings, current?: IntegrationDoc) {
  const pick = <K extends keyof SpendSettings>(k: K) => (k in b ? b[k] : (current?.[k] ?? null));
  const amount = pick('spend_limit_amount');
  return {
    spend_limit_amount: amount,
    spend_limit_period: pick('spend_limit_period') ?? (amount !== null ? 'monthly' : null),
    spend_limit_action: pick('spend_limit_action') ?? (amount !== null ? 'notify' : null),
  };
}

/** One primary per brand, provider and country: making a key primary unsets the others (under one lock). */
function withPrimaryRule<T>(deps: KeyWriteDeps, access: BrandAccess, provider: string, write: () => Promise<T>) {
  return deps.lock(`integration-primary:${access.brand._id}:${provider}`, write);
}

async function unsetOtherPrimaries(key: IntegrationDoc) {
  if (!key.is_primary) return;
  await IntegrationModel.updateMany(
    {
      client_id: key.client_id,
      brand_id: key.brand_id,
      provider_name: key.provider_name,
      country_code: key.country_code ?? null,
      _id: { $ne: key._id },
    },
    { $set: { is_primary: false } },
  );
}

export async function addKey(deps: KeyWriteDeps, access: BrandAccess, b: NewKey): Promise<Schemas['IntegrationKey']> {
  const template = templateOf(b.provider_name);
  if (!template) {
    throw AppError.invalid(`Unknown provider ${b.provider_name}; see /integrations/providers`, [
      { location: 'body', field: 'provider_name', message: `must be one of ${PROVIDER_NAMES.join(', ')}` },
    ]);
  }
  const credentials = validateCredentials(template, b.credentials);
  const created = await withPrimaryRule(deps, access, template.provider_name, () =>
    insertWithNewIntegerId(deps.redis, 'integration-id', IntegrationModel, async (id) => {
      const [doc] = await IntegrationModel.create([
        {
          _id: id,
          client_id: access.brand.client_id,
          brand_id: access.brand._id,
          provider_name: template.provider_name,
          key_label: b.key_label,
          credentials_sealed: deps.ring.encrypt(JSON.stringify(credentials)),
          credentials_masked: maskCredentials(credentials),
          daily_limit: b.daily_limit ?? null,
          minute_limit: b.minute_limit ?? null,
          is_primary: b.is_primary ?? false,
          is_active: true,
          country_code: b.country_code ?? null,
          share_with_pool: b.share_with_pool ?? false,
          ...spendSettings(b),
        },
      ]);
      const key = doc.toObject() as IntegrationDoc;
      await unsetOtherPrimaries(key);
      return key;
    }),
  );
  await deps.keys.changed();
  return keyView(deps.limits, created, 0);
}

/** Changes what the body names; new credentials are checked against the provider's template and sealed. */
export async function updateKey(
  deps: KeyWriteDeps,
  access: BrandAccess,
  id: number,
  b: KeyChanges,
): Promise<Schemas['IntegrationKey']> {
  const current = await findKey(access, id);
  const set: Record<string, unknown> = {};
  for (const f of PLAIN_FIELDS) {
    if (f in b) set[f] = b[f];
  }
  if (b.credentials !== undefined) {
    const credentials = validateCredentials(PROVIDERS[current.provider_name as ProviderName], b.credentials);
    set.credentials_sealed = deps.ring.encrypt(JSON.stringify(credentials));
    set.credentials_masked = maskCredentials(credentials);
  }
  Object.assign(set, spendSettings(b, current));
  const updated = await withPrimaryRule(deps, access, current.provider_name, async () => {
    await IntegrationModel.updateOne({ _id: id, client_id: current.client_id }, { $set: set });
    const key = await findKey(access, id);
    await unsetOtherPrimaries(key);
    return key;
  });
  await deps.keys.changed();
  return keyView(deps.limits, updated);
}

export async function removeKey(
  deps: Pick<KeyWriteDeps, 'keys'>,
  access: BrandAccess,
  id: number,
): Promise<JsonAnswer<'deleteIntegration', 200>> {
  await findKey(access, id);
  await IntegrationModel.deleteOne({ _id: id, client_id: access.brand.client_id });
  await deps.keys.changed();
  return { integration_id: id, deleted: true };
}
