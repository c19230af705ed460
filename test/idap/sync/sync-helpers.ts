import { setTimeout as sleep } from 'node:timers/promises';
import type { TestApi } from '../../support/harness';

/** The settle lag the list and sync tests run with (IDAP_SYNC_SETTLE_MS, its smallest allowed value). */
export const SETTLE_MS = 2000;
export const SYNC_ENV = { IDAP_SYNC_SETTLE_MS: String(SETTLE_MS) };

export interface Listed {
  idap_ref: string;
  resource_id: string;
  modified_at: string;
  flags: string[];
  data: Record<string, unknown>;
}

/** One page of GET /idap/{type}; throws unless it answers 200. */
export async function listPage(
  api: TestApi,
  token: string,
  type: string,
  params: Record<string, string> = {},
): Promise<{ items: Listed[]; has_more: boolean; next_cursor: string; count: number }> {
  const res = await api.call('GET', `/api/v1/idap/${type}?${new URLSearchParams(params)}`, { token });
  if (res.status !== 200) throw new Error(`list ${type}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Follows the cursor from `params` until has_more is false: every item in order, the pages and the last cursor. */
export async function followToEnd(api: TestApi, token: string, type: string, params: Record<string, string> = {}) {
  const items: Listed[] = [];
  let pages = 0;
  let page = await listPage(api, token, type, params);
  for (;;) {
    pages++;
    items.push(...page.items);
    if (!page.has_more) return { items, pages, cursor: page.next_cursor };
    page = await listPage(api, token, type, { ...withoutStart(params), cursor: page.next_cursor });
  }
}

const withoutStart = (params: Record<string, string>) => {
  const { modified_since: _since, cursor: _cursor, ...rest } = params;
  return rest;
};

/**
 * Waits until what was written by `writtenAt` is behind the settle bound, so a list reads it. The settle lag is the
 * subject here: a list deliberately reads SETTLE_MS behind now (100 ms more covers the API's own clock reading).
 */
export async function settled(writtenAt = Date.now()): Promise<void> {
  const wait = writtenAt + SETTLE_MS + 100 - Date.now();
  if (wait > 0) await sleep(wait);
}

/** The cursor's content (it is opaque to clients; the tests read it to check what it carries). */
export const cursorState = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
export const cursorOf = (state: unknown) => Buffer.from(JSON.stringify(state)).toString('base64url');
