import { jobItems } from '../jobs/job-records';
import type { JobStore } from '../jobs/job-store';
import {
  domainOf,
  idapRef,
  linkResource,
  normalizePhone,
  resourceId,
  resourceWrite,
  writeResources,
} from '../idap/resources/resource-writes';
import type { MapsProvider } from '../providers/maps';
import type { ResearchProvider } from '../providers/research';
import { extractPage, mergeExtracted, type Extracted } from './extract';

/** One company a research job works on (an input item). */
export interface CompanyInput {
  name: string;
  domain?: string | null;
  website?: string | null;
  country_code?: string | null;
  /** `idap://businesses/<id>` when the company came from a maps-scrape job. */
  business_ref?: string | null;
  category?: string | null;
}

export interface ResearchDeps {
  maps: MapsProvider;
  store: JobStore;
  research: ResearchProvider;
  signal?: AbortSignal;
  heartbeat?: (details?: unknown) => void;
}

/** Pages read per company besides the home page (team, about, contact...). */
const EXTRA_PAGES = 3;

export const researchResultsCount = (clientId: string, jobId: string) =>
  jobItems.countResults(clientId, jobId, { found: true });

/** The company's website: given, from its business, or looked up on the maps provider by name. */
async function websiteOf(deps: ResearchDeps, c: CompanyInput): Promise<string | null> {
  if (c.domain) return `https://${c.domain.replace(/^https?:\/\//i, '').split('/')[0]}/`;
  if (c.website) return c.website;
  const { places } = await deps.maps.textSearch({ query: c.name, region: c.country_code ?? undefined }, deps.signal);
  return places.find((p) => p.website)?.website ?? null;
}

async function readSite(deps: ResearchDeps, website: string, country: string | null): Promise<Extracted | null> {
  const home = await deps.research.fetchPage(website, deps.signal);
  if (!home) return null;
  const pages = [extractPage(home.html, home.url)];
  for (const link of pages[0].links.filter((l) => l !== website).slice(0, EXTRA_PAGES)) {
    deps.heartbeat?.({ page: link });
    const page = await deps.research.fetchPage(link, deps.signal);
    if (page) pages.push(extractPage(page.html, page.url));
  }
  return mergeExtracted(pages, country);
}

/** Writes what was found as linked IDAP resources; answers the result item's data (CompanyResearch). */
async function writeFindings(
  job: { job_id: string; client_id: string },
  c: CompanyInput,
  website: string,
  x: Extracted,
) {
  const { client_id: clientId, job_id: jobId } = job;
  const domain = domainOf(website)!;
  const country = c.country_code ?? null;
  const base = [
    idapRef('domains', resourceId(clientId, 'domains', domain)),
    ...(c.business_ref ? [c.business_ref] : []),
  ];
  const opts = (related: string[] = []) => ({ jobId, related: [...base, ...related] });
  const writes = [
    resourceWrite(
      clientId,
      'domains',
      domain,
      { domain, website, title: x.title, description: x.description },
      { jobId, related: c.business_ref ? [c.business_ref] : [] },
    ),
  ];
  const registry = x.registrationNumber
    ? resourceWrite(
        clientId,
        'company_registry',
        `${country ?? 'XX'}:${x.registrationNumber}`,
        {
          name: x.legalName ?? c.name,
          registration_number: x.registrationNumber,
          country_code: country,
          domain,
          source_url: website,
        },
        opts(),
      )
    : null;
  if (registry) writes.push(registry);
  const contacts = x.people.map((p) => {
    const refs = [
      ...(p.email ? [idapRef('emails', resourceId(clientId, 'emails', p.email))] : []),
      ...(p.linkedin
        ? [idapRef('linkedin_profiles', resourceId(clientId, 'linkedin_profiles', p.linkedin.toLowerCase()))]
        : []),
    ];
    return resourceWrite(
      clientId,
      'contacts',
      `${domain}|${p.name}`,
      { name: p.name, title: p.title, email: p.email, linkedin_url: p.linkedin, company: c.name, domain },
      opts(refs),
    );
  });
  const contactOf = (pred: (p: Extracted['people'][number]) => boolean) => {
    const i = x.people.findIndex(pred);
    return i >= 0 ? [contacts[i].ref] : [];
  };
  writes.push(...contacts);
  writes.push(
    ...x.emails.map((e) =>
      resourceWrite(
        clientId,
        'emails',
        e,
        { address: e, domain: e.split('@')[1], source_url: website },
        opts(contactOf((p) => p.email === e)),
      ),
    ),
  );
  writes.push(
    ...x.phones.map((p) =>
      resourceWrite(
        clientId,
        'phones',
        normalizePhone(p, country)!,
        { number: p, normalized: normalizePhone(p, country) },
        opts(),
      ),
    ),
  );
  writes.push(
    ...x.linkedin.map((l) => {
      const person = x.people.find((p) => p.linkedin?.toLowerCase() === l.url.toLowerCase());
      const data = person
        ? { url: l.url, kind: l.kind, name: person.name, headline: person.title, company: c.name }
        : { url: l.url, kind: l.kind, name: l.kind === 'company' ? c.name : null, company: c.name };
      return resourceWrite(
        clientId,
        'linkedin_profiles',
        l.url.toLowerCase(),
        data,
        opts(contactOf((p) => p.linkedin?.toLowerCase() === l.url.toLowerCase())),
      );
    }),
  );
  const refs = writes.map((w) => w.ref);
  const links = [
    ...linkResource(clientId, writes[0].ref, refs.slice(1)),
    ...(c.business_ref ? linkResource(clientId, c.business_ref, refs) : []),
  ];
  await writeResources(writes, links);
  return {
    idap_ref: registry?.ref ?? c.business_ref ?? writes[0].ref,
    name: x.legalName ?? c.name,
    domain,
    country_code: country,
    registration_number: x.registrationNumber,
    industry: c.category ?? null,
    employees: null,
    description: x.description,
    linkedin_url: x.linkedin.find((l) => l.kind === 'company')?.url ?? null,
    contacts: x.people.map((p) => ({
      name: p.name,
      title: p.title,
      email: p.email,
      phone: null,
      linkedin_url: p.linkedin,
    })),
    emails: x.emails,
    phones: x.phones,
    related_refs: refs.filter((r) => r !== registry?.ref),
  };
}

/**
 * Researches company `index` of a job: reads its website through the research provider, writes
 * what it found, records the result item and the job's progress. Running it again (a retry, a new
 * worker after a crash) finds the result item and does nothing twice.
 */
export async function researchCompany(
  deps: ResearchDeps,
  job: { job_id: string; client_id: string },
  index: number,
): Promise<{ found: boolean }> {
  const { client_id: clientId, job_id: jobId } = job;
  const done = await jobItems.one(clientId, jobId, 'result', index);
  if (done) return { found: done.found };
  const input = await jobItems.one(clientId, jobId, 'input', index);
  if (!input) throw new Error(`research job ${jobId} has no company #${index}`);
  const company = input.data as unknown as CompanyInput;
  const website = await websiteOf(deps, company);
  const site = website ? await readSite(deps, website, company.country_code ?? null) : null;
  // Under the job's lock and only while it runs or is paused: a company finishing as the job is
  // cancelled is either written and counted, or not written at all.
  await deps.store.recordWhileActive(jobId, clientId, ['running', 'paused'], async () => {
    const data =
      site && website
        ? await writeFindings(job, company, website, site)
        : { name: company.name, reason: website ? 'website could not be read' : 'no website found' };
    const fresh = await jobItems.insert(clientId, jobId, [{ kind: 'result', seq: index, found: Boolean(site), data }]);
    // Counted once, by whichever run inserted the result (finishing a job sets the exact figures).
    return fresh
      ? { inc: { 'progress.done': 1, results_count: site ? 1 : 0 }, message: `Researched ${company.name}` }
      : null;
  });
  return { found: Boolean(site) };
}
