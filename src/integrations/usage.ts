import { RelayUsageModel } from './integration.model';
import { dayOf } from './periods';

export interface RelayCallRecord {
  client_id: string;
  /** The key's brand (its owner). */
  brand_id: number;
  /** The brand the call was made for (differs from brand_id for a pooled key). */
  acting_brand_id: number;
  integration_id: number;
  provider_name: string;
  amount: number;
  provider_status: number | null;
  at?: Date;
}

/**
 * Records one relayed call (what the KPIs count as relay calls and relay spend): an insert into
 * `relay_usage` with client_id, brand_id, provider_name and day, kind `call`.
 */
export async function recordRelayCall(r: RelayCallRecord): Promise<void> {
  const at = r.at ?? new Date();
  await RelayUsageModel.create({ ...r, kind: 'call', calls: 1, day: dayOf(at), at });
}

export interface DayTotal {
  date: string;
  amount: number;
  calls: number;
}

/** Calls and spend per day between two days (inclusive) of one key, or of a brand's keys of a provider. */
export async function dailyTotals(
  match: { client_id: string; integration_id?: number; brand_id?: number; provider_name?: string },
  fromDay: string, toDay: string,
): Promise<Map<string, DayTotal>> {
  // One accumulator per $group: the devstack's FerretDB computes only the first of several (the rest answer 0).
  const sumOf = (field: string) => RelayUsageModel.aggregate<{ _id: string; v: number }>([
    { $match: { ...match, day: { $gte: fromDay, $lte: toDay } } },
    { $group: { _id: '$day', v: { $sum: field } } },
  ]);
  const [amounts, calls] = await Promise.all([sumOf('$amount'), sumOf('$calls')]);
  const callsOf = new Map(calls.map((r) => [r._id, r.v]));
  const rows = amounts.map((r) => ({ _id: r._id, amount: r.v, calls: callsOf.get(r._id) ?? 0 }));
  return new Map(rows.map((r) => [r._id, { date: r._id, amount: Math.round(r.amount * 1e6) / 1e6, calls: r.calls }]));
}
