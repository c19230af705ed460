import type { Client } from 'openapi-fetch';
import { unwrap, type JsonMedia } from './errors';
import type { components, paths } from './generated/openapi';
import { sleep } from './sleep';

export type Watch = components['schemas']['Watch'];
export type WatchRun = components['schemas']['WatchRun'];
type WatchesPath = paths['/api/v1/dashboard/client/watches'];
type WatchPath = paths['/api/v1/dashboard/client/watches/{watch_id}'];
/** A new watch: its name, `maps_scrape` or `research` (the job each run submits), its cadence. */
export type WatchBody = NonNullable<WatchesPath['post']['requestBody']>['content']['application/json'];
/** What a watch's update changes (each field given replaces the watch's). */
export type WatchChanges = NonNullable<WatchPath['patch']['requestBody']>['content']['application/json'];
export type WatchListQuery = NonNullable<WatchesPath['get']['parameters']['query']>;

export class WatchRunTimeout extends Error {
  override readonly name = 'WatchRunTimeout';
  constructor(readonly watchId: string) {
    super(`no new run of watch ${watchId} ended in time`);
  }
}

export interface WaitForRunOptions {
  /** The runs already known (their run_ids): the run waited for is another one. Default: the runs there now. */
  known?: string[];
  /** How often the runs are read (default 2000 ms). */
  intervalMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const byId = (watchId: string) => ({ params: { path: { watch_id: watchId } } });

/**
 * The watch operations as plain calls (each answers the data or throws a LeadServiceError), and a wait for a run:
 * `trigger` then `waitForRun` runs a watch now and answers that run once it has ended, with the leads it saw first.
 */
export function watchesOf(api: Client<paths, JsonMedia>) {
  const runs = async (watchId: string, query: { page?: number; page_size?: number } = {}) =>
    unwrap(
      api.GET('/api/v1/dashboard/client/watches/{watch_id}/runs', { params: { path: { watch_id: watchId }, query } }),
    );
  return {
    create: (body: WatchBody) => unwrap(api.POST('/api/v1/dashboard/client/watches', { body })),
    list: (query: WatchListQuery = {}) => unwrap(api.GET('/api/v1/dashboard/client/watches', { params: { query } })),
    get: (watchId: string) => unwrap(api.GET('/api/v1/dashboard/client/watches/{watch_id}', byId(watchId))),
    update: (watchId: string, changes: WatchChanges) =>
      unwrap(api.PATCH('/api/v1/dashboard/client/watches/{watch_id}', { ...byId(watchId), body: changes })),
    pause: (watchId: string) => unwrap(api.POST('/api/v1/dashboard/client/watches/{watch_id}/pause', byId(watchId))),
    resume: (watchId: string) => unwrap(api.POST('/api/v1/dashboard/client/watches/{watch_id}/resume', byId(watchId))),
    /** Runs the watch now (after the run in progress, if one is). */
    trigger: (watchId: string) =>
      unwrap(api.POST('/api/v1/dashboard/client/watches/{watch_id}/trigger', byId(watchId))),
    remove: (watchId: string) => unwrap(api.DELETE('/api/v1/dashboard/client/watches/{watch_id}', byId(watchId))),
    runs,

    /** Waits for a run of the watch that is not one of `known` to end, and answers it. */
    async waitForRun(watchId: string, options: WaitForRunOptions = {}): Promise<WatchRun> {
      const known = new Set(options.known ?? (await runs(watchId, { page_size: 100 })).runs.map((r) => r.run_id));
      const deadline = options.timeoutMs ? Date.now() + options.timeoutMs : Infinity;
      for (;;) {
        const fresh = (await runs(watchId, { page_size: 100 })).runs.find((r) => !known.has(r.run_id));
        if (fresh && fresh.status !== 'running') return fresh;
        if (Date.now() >= deadline) throw new WatchRunTimeout(watchId);
        await sleep(Math.min(options.intervalMs ?? 2000, Math.max(0, deadline - Date.now())), options.signal);
      }
    },
  };
}

export type WatchCalls = ReturnType<typeof watchesOf>;
