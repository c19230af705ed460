import { ApplicationFailure } from '@temporalio/common';
import {
  BillingRefused,
  pullBillingReport,
  reconcileBilling,
  type BillingDay,
  type BillingDeps,
} from '../src/integrations/billing';

export type IntegrationDeps = BillingDeps;

/** The billing sync's steps; a refusal (no billing API, a refused key) fails the run without retries. */
export function createIntegrationActivities(deps: { integrations: IntegrationDeps }) {
  return {
    async pullBillingReport(q: { client_id: string; integration_id: number }): Promise<BillingDay[]> {
      try {
        return await pullBillingReport(deps.integrations, q);
      } catch (err) {
        if (err instanceof BillingRefused) throw ApplicationFailure.nonRetryable(err.message, 'BillingRefused');
        throw err;
      }
    },
    reconcileBilling: (q: { client_id: string; integration_id: number; run_id: string; report: BillingDay[] }) =>
      reconcileBilling(deps.integrations, q),
  };
}
