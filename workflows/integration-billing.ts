import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { pullBillingReport, reconcileBilling } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/**
 * sync-billing of one key (workflow id `billing-sync-<integration_id>`, one run at a time): pull the
 * provider's usage report, then reconcile recorded spend with it, day by day.
 */
export async function integrationBillingSyncWorkflow(q: {
  client_id: string;
  integration_id: number;
}): Promise<{ days: number; adjustment: number }> {
  const report = await pullBillingReport(q);
  return reconcileBilling({ ...q, run_id: workflowInfo().runId, report });
}
