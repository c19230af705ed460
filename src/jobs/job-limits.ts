import { SETTINGS_DEFAULTS } from '../brands/brand.views';
import type { BrandLookup } from '../brands/brand-cache';
import type { ClientJobLimits, ClientJobLimitsLookup, JobLimitField } from '../clients/client-job-limits';
import { AppError } from '../lib/errors';
import type { CountedBounds, QuotaSubject } from './job-quotas';

/** The deployment's defaults of every client's job limits (JOB_CLIENT_*; 0: none). */
export type JobLimitDefaults = Record<JobLimitField, number>;

/** One of a client's limits in force: its value (0: none) and whether the client's own setting or the default. */
export interface LimitInForce {
  limit: number;
  source: 'client' | 'default';
}

/** A cap on a job parameter, and what sets it, as a refusal names it. */
export interface JobCap {
  limit: number;
  /** e.g. `this client's job_limits.max_locations`, `brand 12's default_campaign_max_locations`. */
  setBy: string;
}

/** The parameters the caps bound (maps-scrape jobs; a research job's size is bounded by its companies). */
export const CAPPED_PARAMS = ['max_locations', 'max_results'] as const;
export type CappedParam = (typeof CAPPED_PARAMS)[number];
export type JobCaps = Partial<Record<CappedParam, JobCap>>;

/** What a job is counted against and capped by. */
export interface JobLimits {
  subjects: QuotaSubject[];
  caps: JobCaps;
}

/**
 * What a brand's settings bound, for the jobs an agent submits for the brand (docs/security.md, "Jobs per tenant"):
 * default_campaign_max_concurrent its unfinished jobs, default_campaign_quota_daily and _monthly the jobs of a UTC
 * day and month, default_campaign_max_locations a job's max_locations. 0: no bound of the brand's own.
 */
function brandBounds(settings: Record<string, unknown>) {
  const value = (name: keyof typeof SETTINGS_DEFAULTS) => Number(settings[name] ?? SETTINGS_DEFAULTS[name]);
  return {
    bounds: {
      unfinished: value('default_campaign_max_concurrent'),
      day: value('default_campaign_quota_daily'),
      month: value('default_campaign_quota_monthly'),
    } satisfies CountedBounds,
    maxLocations: value('default_campaign_max_locations'),
  };
}

/** The tighter of two caps (a cap of 0 is none). */
const tighter = (a: JobCap | undefined, b: JobCap | undefined) =>
  !a || a.limit <= 0 ? b : !b || b.limit <= 0 || a.limit <= b.limit ? a : b;

/** The client's limits and its brands' for a job: what it counts against, and what caps its parameters. */
export function createJobLimits(deps: {
  defaults: JobLimitDefaults;
  clientLimits: ClientJobLimitsLookup;
  brands: BrandLookup;
}) {
  /** The client's limits in force: its own where a super_admin set them, else the deployment's defaults. */
  async function ofClient(clientId: string): Promise<Record<JobLimitField, LimitInForce>> {
    const own: ClientJobLimits | null = await deps.clientLimits.of(clientId);
    const inForce = (field: JobLimitField): LimitInForce =>
      own?.[field] === null || own?.[field] === undefined
        ? { limit: deps.defaults[field], source: 'default' }
        : { limit: own[field]!, source: 'client' };
    return {
      max_unfinished: inForce('max_unfinished'),
      per_day: inForce('per_day'),
      per_month: inForce('per_month'),
      max_locations: inForce('max_locations'),
      max_results: inForce('max_results'),
    };
  }

  /** The brand's bounds, or null for a brand the client no longer has (it bounds nothing). */
  async function ofBrand(clientId: string, brandId: number) {
    const brand = await deps.brands(brandId, clientId);
    return brand ? brandBounds((brand.settings ?? {}) as Record<string, unknown>) : null;
  }

  return {
    ofClient,
    ofBrand,

    /** What a job of the client, submitted for `brandIds` (an agent acting for them), counts against and is capped by. */
    async forJob(clientId: string, brandIds: readonly number[]): Promise<JobLimits> {
      const client = await ofClient(clientId);
      const subjects: QuotaSubject[] = [
        {
          kind: 'client',
          id: clientId,
          clientId,
          bounds: { unfinished: client.max_unfinished.limit, day: client.per_day.limit, month: client.per_month.limit },
        },
      ];
      const setting = (field: JobLimitField) =>
        client[field].source === 'client'
          ? `this client's job_limits.${field}`
          : `the default JOB_CLIENT_${field.toUpperCase()}`;
      let maxLocations: JobCap | undefined = { limit: client.max_locations.limit, setBy: setting('max_locations') };
      for (const brandId of brandIds) {
        const brand = await ofBrand(clientId, brandId);
        if (!brand) continue;
        subjects.push({ kind: 'brand', id: String(brandId), clientId, bounds: brand.bounds });
        maxLocations = tighter(maxLocations, {
          limit: brand.maxLocations,
          setBy: `brand ${brandId}'s default_campaign_max_locations`,
        });
      }
      const caps: JobCaps = {};
      if (maxLocations && maxLocations.limit > 0) caps.max_locations = maxLocations;
      if (client.max_results.limit > 0)
        caps.max_results = { limit: client.max_results.limit, setBy: setting('max_results') };
      return { subjects, caps };
    },
  };
}

export type JobLimitsResolver = ReturnType<typeof createJobLimits>;

/**
 * A maps-scrape job's parameters within its caps: a value given above a cap is refused (422, code job_cap_exceeded,
 * naming the cap and what sets it); a value left out is set to the cap, so the job's record and answers show the
 * bound it runs under. `at` prefixes the fields' names in the refusal (a watch's `maps_scrape.`).
 */
export function withinCaps<P extends Partial<Record<CappedParam, number | null>>>(
  params: P,
  caps: JobCaps,
  at = '',
): P {
  const capped = { ...params };
  for (const field of CAPPED_PARAMS) {
    const cap = caps[field];
    if (!cap) continue;
    const given = params[field];
    if (given === undefined || given === null) capped[field] = cap.limit as P[typeof field];
    else if (given > cap.limit)
      throw new AppError(422, `${field} ${given} is over this job's cap of ${cap.limit} (${cap.setBy})`, {
        code: 'job_cap_exceeded',
        errors: [{ location: 'body', field: `${at}${field}`, message: `at most ${cap.limit} (${cap.setBy})` }],
      });
  }
  return capped;
}

/** Only checks a watch's given values against the caps (a run gets the caps in force when it runs). */
export function assertWithinCaps(params: Partial<Record<CappedParam, number | null>>, caps: JobCaps, at: string) {
  withinCaps(params, caps, at);
}
