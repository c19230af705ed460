import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { LEAD_SEARCH_ATTRIBUTES } from '../../../workflows/search-attributes';
import type { Logger } from '../logger';

const { IndexedValueType } = proto.api.enums.v1;
/** The SDK's type names for the registration call's enum. */
const INDEXED_TYPES: Record<string, number> = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KEYWORD_LIST: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};
const RETRY_MS = 30_000;

/**
 * Whether the namespace has the service's search attributes. A start that names an attribute the namespace lacks is
 * refused by Temporal, so until they are known to be there the client's starts leave them out
 * (temporal-interceptors.ts) and nothing fails: the runs are only harder to find.
 */
export interface SearchAttributeGate {
  readonly ready: boolean;
  /**
   * Registers what is missing (a self-hosted cluster, the dev server) or, where the namespace's credentials may
   * not (Temporal Cloud), says once what the operator must run; tries again every 30 s until they are there.
   */
  ensure(client: Client, namespace: string, logger: Logger): void;
  stop(): void;
}

export function createSearchAttributeGate(): SearchAttributeGate {
  let ready = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let told = false;

  async function registered(client: Client, namespace: string): Promise<boolean> {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
    const missing = LEAD_SEARCH_ATTRIBUTES.filter((key) => customAttributes?.[key.name] === undefined);
    if (missing.length === 0) return true;
    await client.connection.operatorService
      .addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map((key) => [key.name, INDEXED_TYPES[key.type]])),
      })
      .catch((err: Error) => {
        // Another process registered them a moment ago: the next listing shows them.
        if (!/already exists/i.test(err.message)) throw err;
      });
    return false; // confirmed by the next listing
  }

  return {
    get ready() {
      return ready;
    },
    ensure(client, namespace, logger) {
      const attempt = async () => {
        timer = undefined;
        if (stopped) return;
        try {
          ready = await registered(client, namespace);
          if (!ready && !stopped) timer = setTimeout(() => void attempt(), 500);
        } catch (err) {
          if (!told) {
            told = true;
            const names = LEAD_SEARCH_ATTRIBUTES.map((key) => `${key.name} (${key.type})`).join(', ');
            logger.warn(
              { err: (err as Error).message, namespace },
              `Temporal search attributes not registered: runs start without them until ${names} exist ` +
                'in the namespace (docs/operations.md, "Finding runs")',
            );
          }
          if (!stopped) timer = setTimeout(() => void attempt(), RETRY_MS);
        }
        timer?.unref();
      };
      void attempt();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
