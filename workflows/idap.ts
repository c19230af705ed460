import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RerankInput } from '../activities/idap';

const { rerankSearchIndex } = proxyActivities<Activities>({
  // A large tenant's index takes minutes; a timed-out attempt is retried from its last heartbeat.
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/**
 * Re-ranks one tenant's search index of one type that was written before layout 2, in the background of the first
 * search that met it (src/idap/idap.workflows.ts; docs/upgrades.md): `idap-rerank-<client_id>-<type>` in the
 * Temporal UI, its progress in the activity's heartbeat details, its result the number of resources.
 */
export async function idapRerankWorkflow(input: RerankInput): Promise<{ resources: number }> {
  return rerankSearchIndex(input);
}
