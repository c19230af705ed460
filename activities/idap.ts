import { Context } from '@temporalio/activity';
import type { RunLocked } from '../src/lib/locks';
import type { ResourceType } from '../src/idap/resources/resource-writes';
import { rerankIndex, type RerankProgress } from '../src/idap/search/index-maintenance';
import { heartbeat, keepAlive } from './heartbeats';

/** Which index to re-rank: a tenant's type. */
export interface RerankInput {
  client_id: string;
  resource_type: ResourceType;
}

export function createIdapActivities(deps: { lock: RunLocked }) {
  return {
    /**
     * Re-ranks a tenant's index written before layout 2 (rerankIndex), 100 resources a step, each step heartbeated
     * with the last resource done: a retry (a worker that died or stopped, a timeout) goes on after it, and a step
     * done twice rewrites nothing. Stops after the step under way when cancelled (its worker stopping). Answers how
     * many resources the index has.
     */
    async rerankSearchIndex(input: RerankInput): Promise<{ resources: number }> {
      return keepAlive(async () => {
        const ctx = Context.current();
        const checkpoint = ctx.info.heartbeatDetails as Partial<RerankProgress> | undefined;
        const resources = await rerankIndex(input.client_id, input.resource_type, deps.lock, {
          after: checkpoint?.after,
          progress: (step) => {
            heartbeat(step);
            ctx.cancellationSignal.throwIfAborted();
          },
        });
        return { resources };
      });
    },
  };
}
