import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { purgeExpired } = proxyActivities<Activities>({
  // A first purge after a long time without one may remove a lot.
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
});

/**
 * One daily run of the retention schedule (src/retention/retention.workflows.ts): removes the outbox messages,
 * sessions, activity events, relay usage and finished jobs' items older than their lifetimes. Its result, the
 * counts, shows in the Temporal UI.
 */
export async function retentionPurgeWorkflow() {
  return purgeExpired();
}
