import type Redis from 'ioredis';
import type { KeyRing } from '../lib/crypto';
import { AppError } from '../lib/errors';
import { orNull } from '../lib/api-views';
import { iso } from '../lib/ids';
import { insertWithNewIntegerId } from '../lib/integer-ids';
import type { RunLocked } from '../lib/locks';
import { pageEnvelope, type Page } from '../lib/pagination';
import type { BrandAccess } from '../brands/brand-access';
import { IntegrationModel, type IntegrationDoc, type SpendPeriod } from './integration.model';
import { activeCredential, unseal, type KeyCache, type KeyQuery } from './key-store';
import { spendPeriodOf, type Limits } from './limits';
import {
  PROVIDER_NAMES,
  PROVIDERS,
  maskCredentials,
  templateOf,
  templateView,
  validateCredentials,
  type ProviderName,
} from './providers';
import { callProvider, providerUnavailable, ProviderUnreachable, type ProviderCall } from './relay/forward';
import type { RelayEndpoints } from './relay/endpoints';
import { currentSpend, spendReport } from './spend';
import { billingSyncId, type IntegrationWorkflows } from './integrations.workflows';

/** The lightweight call `test` makes per provider, and whether the answer means the key was accepted. */
const KEY_TESTS: Record<ProviderName, { call: ProviderCall; accepted: (status: number, body: unknown) => boolean }> = {
  maps: {
    call: { method: 'GET', path: 'geocode/json', params: { address: 'key check' } },
    accepted: (status, body) => status === 200 && (body as { status?: string })?.status !== 'REQUEST_DENIED',
  },
  'parcel-tracking': {
    call: { method: 'GET', path: '/couriers' },
    accepted: (status) => status >= 200 && status < 300,
  },
  // The account itself.
  messaging: { call: { method: 'GET', path: '.json' }, accepted: (status) => status >= 200 && status < 300 },
};

type Body = Record<string, any>;

export interface IntegrationsDeps {
  redis: Redis;
  ring: KeyRing;
  keys: KeyCache;
  limits: Limits;
  lock: RunLocked;
  endpoints: RelayEndpoints;
  workflows: IntegrationWorkflows;
  timeoutMs: number;
  maxBytes: number;
}

/** Spend settings as stored: an amount without a period counts monthly, without an action notifies. */
function spendSettings(b: Body, current?: IntegrationDoc) {
  const pick = <K extends 'spend_limit_amount' | 'spend_limit_period' | 'spend_limit_action'>(k: K) =>
    k in b ? b[k] : (current?.[k] ?? null);
  const amount = pick('spend_limit_amount');
  return {
    spend_limit_amount: amount,
    spend_limit_period: pick('spend_limit_period') ?? (amount !== null ? 'monthly' : null),
    spend_limit_action: pick('spend_limit_action') ?? (amount !== null ? 'notify' : null),
  };
}

export function createIntegrationsService(deps: IntegrationsDeps) {
  const { limits, ring } = deps;

  async function view(k: IntegrationDoc, spend?: number) {
    const usage = await limits.usage(k._id);
    return {
      integration_id: k._id,
      brand_id: k.brand_id,
      provider_name: k.provider_name,
      key_label: k.key_label,
      credentials_masked: k.credentials_masked as Record<string, string>,
      ...orNull(k, 'daily_limit', 'minute_limit'),
      ...usage,
      is_primary: k.is_primary,
      is_active: k.is_active,
      ...orNull(k, 'country_code', 'spend_limit_amount', 'spend_limit_period', 'spend_limit_action'),
      share_with_pool: k.share_with_pool,
      spend_current_period: spend ?? (await currentSpend(k.client_id, [k])).get(k._id) ?? 0,
      currency: templateOf(k.provider_name)?.currency ?? 'USD',
      last_used_at: iso(k.last_used_at),
      created_at: iso(k.created_at)!,
      updated_at: iso(k.updated_at)!,
    };
  }

  async function find(access: BrandAccess, id: number): Promise<IntegrationDoc> {
    const key = await IntegrationModel.findOne({ _id: id, client_id: access.brand.client_id }).lean<IntegrationDoc>();
    if (!key || key.brand_id !== access.brand._id) throw AppError.notFound('Integration not found');
    return key;
  }

  /** One primary per brand, provider and country: making a key primary unsets the others (under one lock). */
  async function withPrimaryRule<T>(access: BrandAccess, provider: string, write: () => Promise<T>): Promise<T> {
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

  return {
    providers: () => ({ providers: PROVIDER_NAMES.map((n) => templateView(PROVIDERS[n])) }),

    async overview(access: BrandAccess) {
      const keys = await IntegrationModel.find({ client_id: access.brand.client_id, brand_id: access.brand._id }).lean<
        IntegrationDoc[]
      >();
      const spend = await currentSpend(access.brand.client_id, keys);
      const providers = [];
      for (const name of PROVIDER_NAMES.filter((n) => keys.some((k) => k.provider_name === n))) {
        const mine = keys.filter((k) => k.provider_name === name);
        const active = mine.filter((k) => k.is_active);
        const usage = await Promise.all(mine.map((k) => limits.usage(k._id)));
        providers.push({
          provider_name: name,
          display_name: PROVIDERS[name].display_name,
          keys_total: mine.length,
          keys_active: active.length,
          primary_integration_id: active.filter((k) => k.is_primary).sort((a, b) => a._id - b._id)[0]?._id ?? null,
          usage_today: usage.reduce((s, u) => s + u.usage_today, 0),
          daily_limit_total: active.some((k) => k.daily_limit === null)
            ? null
            : active.reduce((s, k) => s + (k.daily_limit ?? 0), 0),
          spend_current_period: Math.round(mine.reduce((s, k) => s + (spend.get(k._id) ?? 0), 0) * 1e6) / 1e6,
          currency: PROVIDERS[name].currency,
        });
      }
      return { brand_id: access.brand._id, providers };
    },

    async list(access: BrandAccess, provider: string | undefined, page: Page) {
      const filter = {
        client_id: access.brand.client_id,
        brand_id: access.brand._id,
        ...(provider ? { provider_name: provider } : {}),
      };
      const all = (await IntegrationModel.find(filter).lean<IntegrationDoc[]>()).sort(
        (a, b) =>
          a.provider_name.localeCompare(b.provider_name) ||
          Number(b.is_primary) - Number(a.is_primary) ||
          a._id - b._id,
      );
      const shown = all.slice(page.skip, page.skip + page.page_size);
      const spend = await currentSpend(access.brand.client_id, shown);
      const integrations = await Promise.all(shown.map((k) => view(k, spend.get(k._id))));
      return pageEnvelope('integrations', integrations, all.length, page);
    },

    get: async (access: BrandAccess, id: number) => view(await find(access, id)),

    async create(access: BrandAccess, b: Body) {
      const template = templateOf(b.provider_name);
      if (!template) {
        throw AppError.invalid(`Unknown provider ${b.provider_name}; see /integrations/providers`, [
          { location: 'body', field: 'provider_name', message: `must be one of ${PROVIDER_NAMES.join(', ')}` },
        ]);
      }
      const credentials = validateCredentials(template, b.credentials);
      const created = await withPrimaryRule(access, template.provider_name, () =>
        insertWithNewIntegerId(deps.redis, 'integration-id', IntegrationModel, async (id) => {
          const [doc] = await IntegrationModel.create([
            {
              _id: id,
              client_id: access.brand.client_id,
              brand_id: access.brand._id,
              provider_name: template.provider_name,
              key_label: b.key_label,
              credentials_sealed: ring.encrypt(JSON.stringify(credentials)),
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
      return view(created, 0);
    },

    async update(access: BrandAccess, id: number, b: Body) {
      const current = await find(access, id);
      const set: Record<string, unknown> = {};
      for (const f of [
        'key_label',
        'daily_limit',
        'minute_limit',
        'is_primary',
        'is_active',
        'country_code',
        'share_with_pool',
      ] as const) {
        if (f in b) set[f] = b[f];
      }
      if (b.credentials !== undefined) {
        const credentials = validateCredentials(PROVIDERS[current.provider_name as ProviderName], b.credentials);
        set.credentials_sealed = ring.encrypt(JSON.stringify(credentials));
        set.credentials_masked = maskCredentials(credentials);
      }
      Object.assign(set, spendSettings(b, current));
      const updated = await withPrimaryRule(access, current.provider_name, async () => {
        await IntegrationModel.updateOne({ _id: id, client_id: current.client_id }, { $set: set });
        const key = await find(access, id);
        await unsetOtherPrimaries(key);
        return key;
      });
      await deps.keys.changed();
      return view(updated);
    },

    async remove(access: BrandAccess, id: number) {
      await find(access, id);
      await IntegrationModel.deleteOne({ _id: id, client_id: access.brand.client_id });
      await deps.keys.changed();
      return { integration_id: id, deleted: true };
    },

    async resetUsage(access: BrandAccess, id: number) {
      const key = await find(access, id);
      await limits.reset(key._id);
      return view(key);
    },

    async keySpend(access: BrandAccess, id: number, days: number) {
      const key = await find(access, id);
      return spendReport({
        clientId: key.client_id,
        brandId: key.brand_id,
        provider: key.provider_name,
        integrationId: key._id,
        match: { client_id: key.client_id, integration_id: key._id },
        period: spendPeriodOf(key),
        limit: key.spend_limit_amount ?? null,
        days,
      });
    },

    async providerSpend(access: BrandAccess, provider: string, days: number) {
      const keys = await IntegrationModel.find({
        client_id: access.brand.client_id,
        brand_id: access.brand._id,
        provider_name: provider,
      }).lean<IntegrationDoc[]>();
      if (!keys.length) throw AppError.notFound('Provider not configured');
      const primary = keys.filter((k) => k.is_active && k.is_primary).sort((a, b) => a._id - b._id)[0];
      return spendReport({
        clientId: access.brand.client_id,
        brandId: access.brand._id,
        provider,
        integrationId: null,
        match: { client_id: access.brand.client_id, brand_id: access.brand._id, provider_name: provider },
        period: primary ? spendPeriodOf(primary) : ('monthly' as SpendPeriod),
        limit: primary?.spend_limit_amount ?? null,
        days,
      });
    },

    async test(access: BrandAccess, id: number) {
      const key = await find(access, id);
      const provider = key.provider_name as ProviderName;
      let credentials;
      try {
        credentials = unseal(ring, key);
      } catch {
        throw providerUnavailable();
      }
      const base = await deps.endpoints.baseUrl(provider);
      const tested_at = new Date().toISOString();
      const check = KEY_TESTS[provider];
      const started = performance.now();
      try {
        if (!base) throw new ProviderUnreachable('not configured');
        const answer = await callProvider(base, provider, credentials, check.call, {
          timeoutMs: deps.timeoutMs,
          maxBytes: deps.maxBytes,
          dispatcher: deps.endpoints.dispatcher(provider),
        });
        const ok = check.accepted(answer.status, answer.body);
        return {
          integration_id: id,
          ok,
          latency_ms: answer.latencyMs,
          provider_status: answer.status,
          message: ok ? 'Key accepted' : `Key refused by the provider (${answer.status})`,
          tested_at,
        };
      } catch (err) {
        if (!(err instanceof ProviderUnreachable) && !(err instanceof AppError)) throw err;
        const latency_ms = Math.round((performance.now() - started) * 10) / 10;
        return {
          integration_id: id,
          ok: false,
          latency_ms,
          provider_status: null,
          message: 'Provider unreachable',
          tested_at,
        };
      }
    },

    /** Starts the durable billing sync (one per key at a time). */
    async syncBilling(access: BrandAccess, id: number) {
      const key = await find(access, id);
      if (!PROVIDERS[key.provider_name as ProviderName].supports_billing_sync)
        throw AppError.conflict(`The ${key.provider_name} provider has no billing API to sync from`);
      const requested_at = new Date().toISOString();
      if (
        !(await deps.workflows.syncBilling({
          client_id: key.client_id,
          brand_id: key.brand_id,
          integration_id: key._id,
        }))
      )
        throw AppError.conflict('A billing sync is already running for this key');
      return { integration_id: key._id, sync_id: billingSyncId(key._id), status: 'queued' as const, requested_at };
    },

    /** For other areas: the decrypted credentials of a brand's primary active key (see key-store.ts). */
    activeCredential: (q: KeyQuery) => activeCredential(ring, q),
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
