import { brandDirectory } from '../brands/brand-directory';
import { clientDirectory } from '../clients/client-directory';
import type { Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import type { JobLimitsResolver, LimitInForce } from './job-limits';
import type { JobQuotas, QuotaSubject } from './job-quotas';

type Usage = Schemas['ClientUsage'];
/** A brand's limit, from its settings. */
type Sourced = { limit: number; source: 'brand' };

/**
 * A client's bounds on jobs in force and what is used of them (getClientUsage), and its active brands': the limits
 * from the client's record, the defaults and the brands' settings, the use from the same Redis counts the submits
 * are checked against (the unfinished jobs reconciled from the records first, at most every few seconds).
 */
export function createJobUsage(deps: { limits: JobLimitsResolver; quotas: Pick<JobQuotas, 'usage'> }) {
  /** The subject's use of each of its bounds, beside the limits in force. */
  async function usageOf(
    subject: Pick<QuotaSubject, 'kind' | 'id' | 'clientId'>,
    limits: Record<'unfinished' | 'day' | 'month', LimitInForce | Sourced>,
  ) {
    const use = await deps.quotas.usage(subject);
    const window = (w: typeof use.day, limit: LimitInForce | Sourced) => ({
      ...limit,
      used: w.used,
      resets_at: w.resetsAt.toISOString(),
    });
    return {
      unfinished: { ...limits.unfinished, used: use.unfinished },
      per_day: window(use.day, limits.day),
      per_month: window(use.month, limits.month),
    };
  }

  async function brandUsage(clientId: string, brandId: number): Promise<Usage['brands'][number] | null> {
    const brand = await deps.limits.ofBrand(clientId, brandId);
    if (!brand) return null;
    const fromBrand = (limit: number): Sourced => ({ limit, source: 'brand' });
    const used = await usageOf(
      { kind: 'brand', id: String(brandId), clientId },
      {
        unfinished: fromBrand(brand.bounds.unfinished),
        day: fromBrand(brand.bounds.day),
        month: fromBrand(brand.bounds.month),
      },
    );
    return { brand_id: brandId, ...used, max_locations: fromBrand(brand.maxLocations) };
  }

  return {
    async of(clientId: string): Promise<Usage> {
      if (!(await clientDirectory.exists(clientId))) throw AppError.notFound('Client not found');
      const limits = await deps.limits.ofClient(clientId);
      const used = await usageOf(
        { kind: 'client', id: clientId, clientId },
        { unfinished: limits.max_unfinished, day: limits.per_day, month: limits.per_month },
      );
      const brandIds = await brandDirectory.activeBrandIds(clientId);
      const brands = await Promise.all(brandIds.map((id) => brandUsage(clientId, id)));
      return {
        client_id: clientId,
        jobs: { ...used, max_locations: limits.max_locations, max_results: limits.max_results },
        brands: brands.filter((b): b is NonNullable<typeof b> => b !== null),
      };
    },
  };
}

export type JobUsage = ReturnType<typeof createJobUsage>;
