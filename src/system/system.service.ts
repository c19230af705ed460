import type { ClientsService } from '../clients/clients.service';
import type { ActiveJobCounts } from '../jobs/active-jobs';
import { codecJson, type JsonPayloads } from '../lib/engines/payload-codec';
import { checkHealth, withoutErrors } from './health';
import { clientQueueStats, platformQueueStats } from './queue-stats';
import { systemInfo, type SystemInfoSources } from './system-info';

/** The infra pieces it reports on, and the lookups it needs from other areas. */
export interface SystemServiceDeps extends SystemInfoSources {
  /** How many active clients lack the sealed credentials scheduled work needs (the clients area). */
  credentialHealth: ClientsService['credentialHealth'];
  /** A client's unfinished jobs by state and type (the jobs area). */
  activeJobCounts: (clientId: string) => Promise<ActiveJobCounts>;
}

/** What an operator asks of the service itself: its engines' health, its facts, its queue, its payload codec. */
export function createSystemService(deps: SystemServiceDeps) {
  const platform = platformQueueStats(deps.engines.temporal, [
    deps.config.TEMPORAL_TASK_QUEUE,
    deps.config.bulkTaskQueue,
  ]);
  return {
    /** Every engine's state; the engines' own error messages (hosts, ports) only for an operator. */
    health: async (details: boolean) => {
      const health = await checkHealth(deps.engines, deps.version);
      return details ? health : withoutErrors(health);
    },
    info: () => systemInfo(deps),
    /** Temporal's figures for the whole platform (an operator), or one client's own jobs (anyone else). */
    queueStats: (clientId: string | null) => (clientId ? clientQueueStats(clientId, deps.activeJobCounts) : platform()),
    credentialHealth: () => deps.credentialHealth(),
    /** Temporal's remote codec protocol, for the Temporal UI: the same codec the client and worker use. */
    codec: (action: 'encode' | 'decode', body: JsonPayloads) => codecJson(deps.engines.payloadCodec, action, body),
  };
}

export type SystemService = ReturnType<typeof createSystemService>;
