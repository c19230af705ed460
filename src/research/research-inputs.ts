import { chunksOf } from '../lib/arrays';
import type { JsonBody, OmitEach, Schemas } from '../lib/contract-types';
import { jobItems, type JobDoc } from '../jobs/job-records';
import type { CompanyInput } from './research-company';

/** The most companies one research job takes from a maps-scrape job. */
export const MAX_SOURCE_COMPANIES = 10_000;

/** What a research job runs with: its submission without the webhook (which the job record keeps apart). */
export type ResearchParams = OmitEach<JsonBody<'submitResearchJob'>, 'webhook_url'>;

/**
 * The companies of a research job, written once as its input items (ids are deterministic, so a
 * retried start writes the same ones): the listed companies, or the businesses with a website that
 * the source maps-scrape job found, in the order it found them.
 */
export async function prepareInputs(doc: JobDoc): Promise<number> {
  const params = doc.params as ResearchParams;
  let companies: CompanyInput[];
  if ('companies' in params) {
    companies = params.companies.map((c) => ({
      name: c.name,
      domain: c.domain ?? null,
      country_code: c.country_code ?? null,
    }));
  } else {
    const items = await jobItems.resultsHaving(doc.client_id, params.source_job_id, ['website'], MAX_SOURCE_COMPANIES);
    // A maps-scrape job's results are the businesses it found, each with a website (resultsHaving).
    companies = items.map(({ data }) => {
      const business = data as Schemas['ScrapedBusiness'] & { website: string };
      return {
        name: business.name,
        website: business.website,
        country_code: business.country_code ?? null,
        business_ref: business.idap_ref,
        category: business.category ?? null,
      };
    });
  }
  let written = 0;
  for (const part of chunksOf(companies, 500)) {
    await jobItems.insert(
      doc.client_id,
      doc._id,
      part.map((c, j) => ({ kind: 'input', seq: written + j, found: true, data: { ...c } })),
    );
    written += part.length;
  }
  return companies.length;
}
