import type Redis from 'ioredis';
import { insertNew } from '../lib/bulk-writes';
import type { Schemas } from '../lib/contract-types';
import { newId } from '../lib/ids';
import type { Logger } from '../lib/logger';
import { tenantQuery } from '../lib/tenancy';
import { appendOrStore, parseTimed, type DrainedStream } from '../lib/stream-drain';
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
  /** The agent user that made the call (its spend counts against that agent's monthly budget), if an agent did. */
  agent_user_id?: string | null;
  amount: number;
  provider_status: number | null;
  at?: Date;
}

/** The Redis stream relayed calls wait in until a worker's drain stores them in `relay_usage`. */
export const RELAY_USAGE_STREAM = 'relay:usage';

type UsageDoc = RelayCallRecord & { _id: string; kind: 'call'; calls: number; day: string; at: Date };

const usageDoc = (r: RelayCallRecord): UsageDoc => {
  const at = r.at ?? new Date();
  return { _id: newId(), ...r, kind: 'call', calls: 1, day: dayOf(at), at };
};

/** Stores relayed calls in `relay_usage`; a call stored before (a redelivered batch) is skipped by its id. */
async function storeUsage(docs: UsageDoc[]): Promise<void> {
  await insertNew(RelayUsageModel, docs as unknown as Record<string, unknown>[]);
}

/** Records relayed calls straight into MongoDB (data set up outside a relay, such as tests of the figures). */
export const recordRelayCalls = (records: RelayCallRecord[]) => storeUsage(records.map(usageDoc));

/** The drain's view of the usage stream (src/lib/stream-drain.ts), run by every worker. */
export const relayUsageStream: DrainedStream<UsageDoc> = {
  stream: RELAY_USAGE_STREAM,
  group: 'relay-usage-drain',
  parse: parseTimed,
  store: storeUsage,
};

/**
 * Records one relayed call (what usage, spend and the KPIs' relay figures count) durably before it
 * returns: appended to the Redis stream (append-only file), which a worker's drain moves into
 * `relay_usage` within about a second; or, when Redis does not take it, written to MongoDB directly.
 * One Redis append instead of a document write keeps the relay's own cost per call small.
 */
export function createUsageRecorder(redis: Redis, logger: Logger) {
  return async function recordRelayCall(r: RelayCallRecord): Promise<void> {
    const doc = usageDoc(r);
    await appendOrStore(redis, logger, relayUsageStream, doc, {
      fields: { integration_id: doc.integration_id },
      message: 'relay usage: Redis did not take the call; writing it to MongoDB',
    });
  };
}

export type RecordRelayCall = ReturnType<typeof createUsageRecorder>;

/** A day's calls and spend, as a Spend record's history shows them. */
export type DayTotal = Schemas['Spend']['history'][number];

/** Calls and spend per day between two days (inclusive) of one key, or of a brand's keys of a provider. */
export async function dailyTotals(
  match: { client_id: string; integration_id?: number; brand_id?: number; provider_name?: string },
  fromDay: string,
  toDay: string,
): Promise<Map<string, DayTotal>> {
  // One accumulator per $group: the devstack's FerretDB computes only the first of several (the rest answer 0).
  const sumOf = (field: string) =>
    RelayUsageModel.aggregate<{ _id: string; v: number }>([
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
export async function relayUsageTotals(
  clientId: string | null,
  window: { from: string; to: string },
): Promise<{ calls: number; spend: number }> {
  const tenant = tenantQuery(clientId);
  const match = { ...tenant.filter, day: { $gte: window.from, $lte: window.to } };
  // One accumulator per $group (FerretDB computes only the first of several).
  const total = async (field: string) => {
    const rows = await RelayUsageModel.aggregate<{ v: number }>([
      { $match: match },
      { $group: { _id: null, v: { $sum: field } } },
    ]).option(tenant.options as never);
    return rows[0]?.v ?? 0;
  };
  const [calls, spend] = await Promise.all([total('$calls'), total('$amount')]);
  return { calls, spend: Math.round(spend * 1e6) / 1e6 };
}

/** Removes the relay usage older than `cutoff`, of every client (the retention purge); answers how many. */
export async function purgeRelayUsageBefore(cutoff: Date): Promise<number> {
  const { deletedCount } = await RelayUsageModel.deleteMany({ at: { $lt: cutoff } }).setOptions({ allTenants: true });
  return deletedCount;
}
