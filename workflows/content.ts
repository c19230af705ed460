import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeployHookCall } from '../src/content/deploy-hook-call';

const { callDeployHook } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // A site builder that is down or busy delays the deploy; a 4xx other than 408/429 ends it (activity decides).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 12 },
});

/** Tells a client's site builder that a post or page was published (HTTP POST to its deploy hook URL). */
export async function contentDeployHookWorkflow(call: DeployHookCall): Promise<{ status: number }> {
  return callDeployHook(call);
}
