import type { Client } from '@temporalio/client';
import { startWorkflow } from '../lib/engines/temporal';
import { searchAttributesOf } from '../../workflows/search-attributes';
import { integrationBillingSyncWorkflow } from '../../workflows/integration-billing';

/** One billing sync per key at a time: its runs share the key's id (a finished one does not block the next). */
export const billingSyncId = (integrationId: number) => `billing-sync-${integrationId}`;

/** The integrations' workflow calls, by the workflow function. */
export function createIntegrationWorkflows(temporal: Client, taskQueue: string) {
  return {
    /** Starts the key's billing sync; false when one is already running for the key. */
    async syncBilling(q: { client_id: string; brand_id: number; integration_id: number }): Promise<boolean> {
      const { started } = await startWorkflow(
        temporal,
        integrationBillingSyncWorkflow,
        {
          taskQueue,
          workflowId: billingSyncId(q.integration_id),
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          args: [{ client_id: q.client_id, integration_id: q.integration_id }],
          typedSearchAttributes: searchAttributesOf({ clientId: q.client_id, brandIds: [q.brand_id] }),
        },
        { once: true },
      );
      return started;
    },
  };
}

export type IntegrationWorkflows = ReturnType<typeof createIntegrationWorkflows>;
