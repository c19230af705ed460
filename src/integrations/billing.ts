import type { KeyRing } from '../lib/crypto';
import { isDuplicateKeyError } from '../lib/errors';
import { IntegrationModel, RelayUsageModel, type IntegrationDoc } from './integration.model';
import { unseal } from './key-store';
import type { Limits } from './limits';
import { lastDays, toMicros } from './periods';
import type { RelayEndpoints } from './relay/endpoints';
import { callProvider, ProviderUnreachable } from './relay/forward';
import { dailyTotals } from './usage';

export interface BillingDeps {
  ring: KeyRing;
  limits: Limits;
  endpoints: RelayEndpoints;
  timeoutMs: number;
  maxBytes: number;
  /** Whether the relay calls recorded so far are stored in relay_usage (they pass through a Redis stream). */
  usageStored: () => Promise<boolean>;
}

export interface BillingDay {
  day: string;
  amount: number;
}

/** Why a sync cannot succeed by trying again (the workflow fails at once). */
export class BillingRefused extends Error {}

/** Days of the provider's usage report a sync reconciles (ending today). */
export const BILLING_SYNC_DAYS = 31;

/**
 * The messaging provider's daily usage report (its Usage Records API) for the key's account: the
 * amount the provider actually billed per day. Unreachable: throws (the activity retries).
 */
export async function pullBillingReport(
  deps: BillingDeps,
  q: { client_id: string; integration_id: number },
): Promise<BillingDay[]> {
  const key = await IntegrationModel.findOne({ _id: q.integration_id, client_id: q.client_id }).lean<IntegrationDoc>();
  if (!key) throw new BillingRefused('the key was deleted');
  if (key.provider_name !== 'messaging')
    throw new BillingRefused(`the ${key.provider_name} provider has no billing API`);
  let credentials;
  try {
    credentials = unseal(deps.ring, key);
  } catch {
    throw new BillingRefused('the stored credentials cannot be decrypted');
  }
  const base = await deps.endpoints.baseUrl('messaging');
  if (!base) throw new ProviderUnreachable('not configured');
  const days = lastDays(BILLING_SYNC_DAYS, new Date());
  const answer = await callProvider(
    base,
    'messaging',
    credentials,
    {
      method: 'GET',
      path: '/Usage/Records/Daily.json',
      params: { Category: 'sms', StartDate: days[0], EndDate: days[days.length - 1], PageSize: 1000 },
    },
    { ...deps, dispatcher: deps.endpoints.dispatcher('messaging') },
  );
  if (answer.status !== 200) throw new BillingRefused(`the provider refused the usage report (${answer.status})`);
  const records = (answer.body as { usage_records?: { start_date: string; price: string }[] })?.usage_records;
  if (!Array.isArray(records)) throw new BillingRefused('the usage report was not understood');
  return records.map((r) => ({ day: String(r.start_date).slice(0, 10), amount: Math.abs(Number(r.price)) || 0 }));
}

/**
 * Makes recorded spend equal the provider's figures for each reported day: the difference is stored
 * as an `adjustment` record (id from the run and day, so a retried activity adds it once) and added
 * to the day's spend counter the limits read.
 */
export async function reconcileBilling(
  deps: Pick<BillingDeps, 'limits' | 'usageStored'>,
  q: { client_id: string; integration_id: number; run_id: string; report: BillingDay[] },
): Promise<{ days: number; adjustment: number }> {
  // Recorded spend must include every call made before the report was read: a call still in the usage
  // stream would be counted after the correction, twice. The activity retries until the drain caught up.
  if (!(await deps.usageStored()))
    throw new Error('relay usage is still being stored; the reconciliation waits for it');
  const key = await IntegrationModel.findOne({ _id: q.integration_id, client_id: q.client_id }).lean<IntegrationDoc>();
  if (!key) return { days: 0, adjustment: 0 };
  let total = 0;
  for (const { day, amount } of q.report) {
    const recorded =
      (await dailyTotals({ client_id: q.client_id, integration_id: key._id }, day, day)).get(day)?.amount ?? 0;
    const diff = Math.round((amount - recorded) * 1e6) / 1e6;
    if (diff === 0) continue;
    try {
      await RelayUsageModel.create({
        _id: `billing:${q.run_id}:${day}`,
        client_id: key.client_id,
        brand_id: key.brand_id,
        acting_brand_id: key.brand_id,
        integration_id: key._id,
        provider_name: key.provider_name,
        kind: 'adjustment',
        day,
        calls: 0,
        amount: diff,
        at: new Date(),
      });
    } catch (err) {
      if (isDuplicateKeyError(err)) continue; // this run already corrected the day
      throw err;
    }
    await deps.limits.adjust(key._id, day, toMicros(diff));
    total += diff;
  }
  return { days: q.report.length, adjustment: Math.round(total * 1e6) / 1e6 };
}
