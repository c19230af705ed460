import { sha256 } from '../lib/crypto';
import { claimOnce } from '../lib/claims';
import type { Schemas } from '../lib/contract-types';
import { iso } from '../lib/ids';
import type { Logger } from '../lib/logger';
import type { Notifier } from '../notifications/notifier';
import { brandDirectory } from '../brands/brand-directory';
import { clientDirectory } from '../clients/client-directory';
import { userDirectory } from '../users/user-directory';
import { RelayUsageModel, type IntegrationDoc, type SpendPeriod } from './integration.model';
import { spendPeriodOf } from './limits';
import { dayOf, fromMicros, lastDays, periodBounds } from './periods';
import { templateOf } from './providers';
import { dailyTotals, type DayTotal } from './usage';

const DAY_MS = 86_400_000;

/** Spend of each key in its own current period, from the recorded calls and corrections. */
export async function currentSpend(
  clientId: string,
  keys: IntegrationDoc[],
  at = new Date(),
): Promise<Map<number, number>> {
  const out = new Map<number, number>(keys.map((k) => [k._id, 0]));
  if (!keys.length) return out;
  const starts = keys.map((k) => periodBounds(spendPeriodOf(k), at).start.getTime());
  const rows = await RelayUsageModel.aggregate<{ _id: { id: number; day: string }; amount: number }>([
    {
      $match: {
        client_id: clientId,
        integration_id: { $in: keys.map((k) => k._id) },
        day: { $gte: dayOf(new Date(Math.min(...starts))) },
      },
    },
    { $group: { _id: { id: '$integration_id', day: '$day' }, amount: { $sum: '$amount' } } },
  ]);
  for (const k of keys) {
    const from = dayOf(periodBounds(spendPeriodOf(k), at).start);
    const sum = rows.filter((r) => r._id.id === k._id && r._id.day >= from).reduce((s, r) => s + r.amount, 0);
    out.set(k._id, Math.round(sum * 1e6) / 1e6);
  }
  return out;
}

/** The Spend record: the period's amount against the limit, and `days` of daily history (oldest first). */
export async function spendReport(opts: {
  clientId: string;
  brandId: number;
  provider: string;
  integrationId: number | null;
  match: Parameters<typeof dailyTotals>[0];
  period: SpendPeriod;
  limit: number | null;
  days: number;
  at?: Date;
}): Promise<Schemas['Spend']> {
  const at = opts.at ?? new Date();
  const { start, end } = periodBounds(opts.period, at);
  const history = lastDays(opts.days, at);
  const from = [history[0], dayOf(start)].sort()[0];
  const totals = await dailyTotals(opts.match, from, dayOf(at));
  const inPeriod = [...totals.values()].filter((t) => t.date >= dayOf(start)).reduce((s, t) => s + t.amount, 0);
  const amount = Math.round(inPeriod * 1e6) / 1e6;
  return {
    brand_id: opts.brandId,
    provider_name: opts.provider,
    integration_id: opts.integrationId,
    currency: templateOf(opts.provider)?.currency ?? 'USD',
    period: opts.period,
    period_start: iso(start)!,
    period_end: iso(end)!,
    amount: Math.max(0, amount),
    spend_limit_amount: opts.limit,
    limit_reached: opts.limit !== null && amount >= opts.limit,
    history: history.map((d): DayTotal => {
      const t = totals.get(d);
      return { date: d, amount: Math.max(0, t?.amount ?? 0), calls: Math.max(0, t?.calls ?? 0) };
    }),
  };
}

/**
 * spend_limit_action `notify`: once per key and period (a one-time claim), e-mail the brand's admins
 * and owners (the client's admin address when the brand has none) that the key reached its limit;
 * calls continue. An in-process memo spares the claim's insert on every later call of the period.
 */
export function createSpendNotifier(deps: { notifier: Notifier; logger: Logger; publicBaseUrl: string }) {
  const done = new Set<string>();
  return async function notifySpendReached(key: IntegrationDoc, spentMicros: number, at = new Date()): Promise<void> {
    if (
      key.spend_limit_action !== 'notify' ||
      key.spend_limit_amount == null ||
      fromMicros(spentMicros) < key.spend_limit_amount
    )
      return;
    const period = spendPeriodOf(key);
    const { start, end } = periodBounds(period, at);
    const claim = `integration-spend-notify:${key._id}:${dayOf(start)}`;
    if (done.has(claim)) return;
    if (!(await claimOnce(claim))) return void done.add(claim);
    done.add(claim);
    try {
      let to = await userDirectory.activeEmails(await brandDirectory.managers(key.client_id, key.brand_id));
      if (!to.length) {
        const client = await clientDirectory.profile(key.client_id);
        to = client ? [client.admin_email] : [];
      }
      const spent = fromMicros(spentMicros).toFixed(2);
      const limit = Number(key.spend_limit_amount).toFixed(2);
      const lastDay = dayOf(new Date(end.getTime() - DAY_MS));
      const text =
        `The ${key.provider_name} key "${key.key_label}" (integration ${key._id}, brand ${key.brand_id}) has spent ` +
        `${spent} of its ${period} limit of ${limit} (period ${dayOf(start)} to ${lastDay}, UTC). ` +
        'Calls continue; raise the limit or switch the action to block to stop them.\n\n' +
        `Spend: ${deps.publicBaseUrl}/api/v1/brands/${key.brand_id}/integrations/${key._id}/spend`;
      for (const address of to) {
        await deps.notifier.send(`spend-limit-${key._id}-${dayOf(start)}-${sha256(address).slice(0, 16)}`, {
          channel: 'email',
          to: address,
          subject: `Spend limit reached: ${key.key_label}`,
          text,
        });
      }
    } catch (err) {
      deps.logger.error({ err: (err as Error).message, integration_id: key._id }, 'spend limit notification not sent');
    }
  };
}

export type NotifySpendReached = ReturnType<typeof createSpendNotifier>;
