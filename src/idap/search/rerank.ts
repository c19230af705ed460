import type { Logger } from '../../lib/logger';
import type { IdapWorkflows } from '../idap.workflows';
import type { ResourceType } from '../resources/resource.model';
import { statsId } from './search-index.model';

/** How long a process waits before asking again for the re-rank of an index it has asked for already. */
const ASK_AGAIN_MS = 60_000;

/**
 * What a search calls when it meets an index written before layout 2 (an upgrade's rebuild on first use,
 * docs/upgrades.md): starts its re-rank workflow (`idap-rerank-<client_id>-<type>`, one run per index however many
 * processes ask), without holding up the search. A process asks at most once a minute per index: the run records
 * layout 2 at its end and announces it, after which no search asks; a run that failed for good is started again by
 * the next search a minute later. Searches answer meanwhile, reading the old ranks without stopping early.
 */
export function rerankOnFirstUse(deps: { workflows: Pick<IdapWorkflows, 'rerank'>; logger: Logger }) {
  const asked = new Map<string, number>();
  return (clientId: string, type: ResourceType): void => {
    const key = statsId(clientId, type);
    const now = Date.now();
    if (now - (asked.get(key) ?? -Infinity) < ASK_AGAIN_MS) return;
    asked.set(key, now);
    deps.workflows.rerank(clientId, type).then(
      (run) => deps.logger.info({ client_id: clientId, resource_type: type, ...run }, 'idap index re-rank started'),
      (err) => {
        asked.delete(key); // Temporal was unreachable: the next search asks again
        deps.logger.warn({ err, client_id: clientId, resource_type: type }, 'idap index re-rank not started');
      },
    );
  };
}
