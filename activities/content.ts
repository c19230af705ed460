import { ApplicationFailure, log } from '@temporalio/activity';
import type { DeployHookCall } from '../src/content/deploy-hook';

const RETRYABLE_4XX = new Set([408, 425, 429]);

export function createContentActivities() {
  return {
    /** POSTs the published record's type, id and slug to the deploy hook; a 5xx, timeout or network error is retried. */
    async callDeployHook(call: DeployHookCall): Promise<{ status: number }> {
      const res = await fetch(call.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'lead-service-deploy-hook/1', 'idempotency-key': call.delivery_id },
        body: JSON.stringify(call.payload),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) {
        const retryable = res.status >= 500 || RETRYABLE_4XX.has(res.status);
        throw ApplicationFailure.create({ message: `deploy hook answered ${res.status}`, type: 'DeployHookRejected', nonRetryable: !retryable });
      }
      log.info('deploy hook called', { delivery_id: call.delivery_id, status: res.status });
      return { status: res.status };
    },
  };
}
