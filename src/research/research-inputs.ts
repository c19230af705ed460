import { JobItemModel, jobItemId, jobItemsOf, type JobDoc } from '../jobs/job.model';
import { insertNew } from '../jobs/resource-writes';
import type { CompanyInput } from './research-company';

/** The most companies one research job takes from a maps-scrape job. */
export const MAX_SOURCE_COMPANIES = 10_000;

/**
 * The companies of a research job, written once as its input items (ids are deterministic, so a
 * retried start writes the same ones): the listed companies, or the businesses with a website that
 * the source maps-scrape job found, in the order it found them.
 */
export async function prepareInputs(doc: JobDoc): Promise<number> {
  const params = doc.params as { companies?: CompanyInput[]; source_job_id?: string };
  let companies: CompanyInput[];
  if (params.companies) {
    companies = params.companies.map((c) => ({
      name: c.name,
      domain: c.domain ?? null,
      country_code: c.country_code ?? null,
    }));
  } else {
    const items = await JobItemModel.find({
      ...jobItemsOf(doc.client_id, params.source_job_id!, 'result'),
      'data.website': { $ne: null },
    })
      .sort({ seq: 1 })
      .limit(MAX_SOURCE_COMPANIES)
      .lean<{ data: Record<string, any> }[]>();
    companies = items.map(({ data: b }) => ({
      name: b.name,
      website: b.website,
      country_code: b.country_code ?? null,
      business_ref: b.idap_ref,
      category: b.category ?? null,
    }));
  }
  const now = new Date();
  for (let i = 0; i < companies.length; i += 500) {
    await insertNew(
      JobItemModel,
      companies.slice(i, i + 500).map((c, j) => ({
        _id: jobItemId(doc._id, 'input', i + j),
        client_id: doc.client_id,
        job_id: doc._id,
        kind: 'input',
        seq: i + j,
        found: true,
        data: c,
        created_at: now,
        updated_at: now,
      })),
    );
  }
  return companies.length;
}
