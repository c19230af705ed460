import type { ClientsService } from '../clients/clients.service';
import { codecJson, type JsonPayloads } from '../lib/engines/payload-codec';
import { checkHealth } from './health';
import { queueStats } from './queue-stats';
import { systemInfo, type SystemInfoSources } from './system-info';

/** The infra pieces it reports on, and the one lookup it needs from another area. */
export interface SystemServiceDeps extends SystemInfoSources {
  /** How many active clients lack the sealed credentials scheduled work needs (the clients area). */
  credentialHealth: ClientsService['credentialHealth'];
}

/** What an operator asks of the service itself: its engines' health, its facts, its queue, its payload codec. */
export function createSystemService(deps: SystemServiceDeps) {
  return {
    health: () => checkHealth(deps.engines, deps.version),
    info: () => systemInfo(deps),
    queueStats: () => queueStats(deps.engines.temporal, [deps.config.TEMPORAL_TASK_QUEUE, deps.config.bulkTaskQueue]),
    credentialHealth: () => deps.credentialHealth(),
    /** Temporal's remote codec protocol, for the Temporal UI: the same codec the client and worker use. */
    codec: (action: 'encode' | 'decode', body: JsonPayloads) => codecJson(deps.engines.payloadCodec, action, body),
  };
}

export type SystemService = ReturnType<typeof createSystemService>;
