import { idapRef, resourceId } from '../../src/idap/resources/resource.model';
import type { MapsJobParams } from '../../src/jobs/maps-scrape';
import { expectedPlaces } from '../jobs/support';
import { eventually, type TestApi } from '../support/harness';

export const WATCHES = '/api/v1/dashboard/client/watches';
export const watchPath = (id: string, what?: string) => `${WATCHES}/${id}${what ? `/${what}` : ''}`;

/** A small maps-scrape a watch runs: one location of Luxembourg, a few dozen businesses from the sandbox. */
export const SMALL_MAPS: MapsJobParams = { query: 'bakery', country_code: 'LU', max_locations: 1 };

/** The refs of the businesses a maps-scrape of `params` stores for the client (with `opened` opened since). */
export const businessRefs = (clientId: string, params: MapsJobParams, opened = 0) =>
  expectedPlaces(params, opened).map((p) => idapRef('businesses', resourceId(clientId, 'businesses', p.place_id)));

/** Waits until the watch has `count` runs, all ended; answers them newest first. */
export async function endedRuns(api: TestApi, token: string, watchId: string, count: number, timeoutMs = 60_000) {
  return eventually(
    async () => {
      const res = await api.call('GET', `${watchPath(watchId, 'runs')}?page_size=100`, { token });
      const runs = res.body?.runs as { status: string }[] | undefined;
      if (runs?.length === count && runs.every((r) => r.status !== 'running')) return runs as any[];
      throw new Error(`the runs are ${JSON.stringify(runs)}`); // kept by eventually() for its message
    },
    timeoutMs,
    200,
    `${count} ended runs of watch ${watchId}`,
  );
}
