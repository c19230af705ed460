import { RelayUsageModel } from './integration.model';
import { newId } from '../lib/ids';
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

interface Pending {
  doc: Record<string, unknown>;
  done: (err?: unknown) => void;
}

const MAX_BATCH = 500;
const queue: Pending[] = [];
let writing = false;

/** Group commit: whatever queued while one insert ran goes in the next, as one insertMany. */
async function writeQueued(): Promise<void> {
  writing = true;
  while (queue.length) {
    const batch = queue.splice(0, MAX_BATCH);
    try {
      await RelayUsageModel.insertMany(batch.map((p) => p.doc), { ordered: false });
      for (const p of batch) p.done();
    } catch (err) {
      for (const p of batch) p.done(err);
    }
  }
  writing = false;
}

/**
 * Records one relayed call (what the KPIs count as relay calls and relay spend): an insert into
 * `relay_usage` with client_id, brand_id, provider_name and day, kind `call`. Resolves once stored;
 * concurrent calls share inserts (group commit), so the record does not cost one write each under load.
 */
export function recordRelayCall(r: RelayCallRecord): Promise<void> {
  const at = r.at ?? new Date();
  const doc = { _id: newId(), ...r, kind: 'call', calls: 1, day: dayOf(at), at };
  return new Promise((resolve, reject) => {
    queue.push({ doc, done: (err) => (err ? reject(err) : resolve()) });
    if (!writing) void writeQueued();
  });
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

/**
 * Relay calls and relay spend (corrections of billing syncs included) of one client, or of every
 * client (null), over whole UTC days `from`..`to` inclusive: the admin KPIs' relay_calls and
 * relay_spend (a KpiWindow's from and to).
 */
export async function relayUsageTotals(clientId: string | null, window: { from: string; to: string }): Promise<{ calls: number; spend: number }> {
  const match = { ...(clientId ? { client_id: clientId } : {}), day: { $gte: window.from, $lte: window.to } };
  // One accumulator per $group (FerretDB computes only the first of several).
  const total = async (field: string) => {
    const rows = await RelayUsageModel.aggregate<{ v: number }>([{ $match: match }, { $group: { _id: null, v: { $sum: field } } }])
      .option(clientId ? {} : ({ allTenants: true } as never));
    return rows[0]?.v ?? 0;
  };
  const [calls, spend] = await Promise.all([total('$calls'), total('$amount')]);
  return { calls, spend: Math.round(spend * 1e6) / 1e6 };
}
