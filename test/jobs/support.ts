import { parseList, type Item } from 'structured-headers';
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

/** A job bound as a submit's RateLimit fields show it: its quota and window, and what is left and when it resets. */
export interface ShownQuota {
  q: number;
  w?: number;
  r: number;
  t?: number;
}

/**
 * The RateLimit-Policy and RateLimit fields of an answer, read by the `structured-headers` parser (not ours) and
 * held to draft-ietf-httpapi-ratelimit-headers: each field a List of String Items; a policy's q (and w, if any) and a
 * limit's r (and t, if any) non-negative Integers; the same policies in both fields; r at most q, t at most w.
 * Answers them by policy name.
 */
export function shownQuotas(res: { headers: Headers }): Record<string, ShownQuota> {
  const read = (field: string) => {
    const value = res.headers.get(field);
    if (value === null) throw new Error(`no ${field} field`);
    return (parseList(value) as Item[]).map(([bare, params]) => {
      if (typeof bare !== 'string') throw new Error(`${field}: ${String(bare)} is not a String`);
      for (const [key, n] of params)
        if (!Number.isInteger(n) || (n as number) < 0) throw new Error(`${field}: ${bare};${key} is not an Integer`);
      return [bare, Object.fromEntries(params) as Record<string, number>] as const;
    });
  };
  const policies = read('ratelimit-policy');
  const limits = new Map(read('ratelimit'));
  expect(policies.map(([name]) => name)).toEqual([...limits.keys()]);
  return Object.fromEntries(
    policies.map(([name, { q, w }]) => {
      const { r, t } = limits.get(name)!;
      expect(r).toBeLessThanOrEqual(q);
      if (w !== undefined) expect(t).toBeLessThanOrEqual(w);
      else expect(t).toBeUndefined(); // a quota without a window has no reset
      return [name, { q, r, ...(w !== undefined && { w }), ...(t !== undefined && { t }) }];
    }),
  );
}

/** Seconds from now to the end of the UTC day and of the UTC month. */
export function windowEnds(now = new Date()) {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const until = (end: number) => Math.ceil((end - now.getTime()) / 1000);
  return {
    day: until(Date.UTC(y, m, now.getUTCDate() + 1)),
    month: until(Date.UTC(y, m + 1, 1)),
    monthSeconds: (Date.UTC(y, m + 1, 1) - Date.UTC(y, m, 1)) / 1000,
  };
}

/** A refusal by a job bound: 429, the bound's code, and a Retry-After of whole seconds (answered). */
export function expectQuotaRefusal(res: { status: number; body: any; headers: Headers }, code: string): number {
  expect([res.status, res.body.code]).toEqual([429, code]);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  return retryAfter;
}
