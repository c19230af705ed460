import { expandLocations } from '../../src/locations/dataset';
import { createJobLocks } from '../../src/jobs/job-lock';
import { createJobListIndex } from '../../src/jobs/job-list-index';
import { createJobStore } from '../../src/jobs/job-store';
import { createLogger } from '../../src/lib/logger';
import { searchText, type MapsJobParams } from '../../src/jobs/maps-scrape';
import { placesFor, type WirePlace } from '../../src/sandbox/maps-data';
import { eventually, type TestApi } from '../support/harness';

/**
 * What the sandbox answers for a maps-scrape job: its unique places in the order the job finds them (with `opened`
 * businesses of its query opened in the sandbox since it started: its Openings).
 */
export function expectedPlaces(p: MapsJobParams, opened = 0): WirePlace[] {
  const byId = new Map<string, WirePlace>();
  for (const loc of expandLocations(p.country_code, p.region_codes ?? [], p.max_locations)) {
    const region = p.country_code.toLowerCase();
    for (const place of placesFor(searchText(p.query, loc), loc.lat, loc.lng, region, opened)) {
      if (!byId.has(place.place_id)) byId.set(place.place_id, place);
    }
  }
  const all = [...byId.values()];
  return p.max_results ? all.slice(0, p.max_results) : all;
}

/** Test settings: short retries and liveness timeouts so failure paths finish in seconds. */
export const FAST_RETRIES = {
  JOB_RETRY_INITIAL_MS: '200',
  JOB_RETRY_MAX_ATTEMPTS: '3',
  JOB_HEARTBEAT_TIMEOUT_MS: '5000',
};

export async function waitForStatus(api: TestApi, token: string, path: string, statuses: string[], timeoutMs = 30_000) {
  return eventually(async () => {
    const res = await api.call('GET', path, { token });
    return statuses.includes(res.body?.status) ? res.body : undefined;
  }, timeoutMs);
}

export const SUBMIT = '/api/v1/dashboard/client/jobs/maps-scrape/submit';
export const jobPath = (id: string, what = 'status') => `/api/v1/dashboard/client/jobs/${id}/${what}`;
export const researchPath = (id: string, what = 'status') => `/api/v1/dashboard/client/research/${id}/${what}`;

/** The header line of a research job's CSV results, as the contract gives it (not read from the service's code). */
export const RESEARCH_CSV_HEADER =
  'idap_ref,name,domain,country_code,registration_number,industry,' +
  'employees,description,linkedin_url,emails,phones,contacts';

/**
 * A job store on the test service's engines that records steps as a worker's activities do (the same job locks and
 * list index) and publishes nothing: for tests that run a job's step beside its own run.
 */
export function stepStore(api: TestApi) {
  const redis = api.rt.engines.redis;
  return createJobStore({
    locks: createJobLocks(redis),
    events: { publish: async () => null } as never,
    listIndex: createJobListIndex(redis, createLogger('silent')),
  });
}
