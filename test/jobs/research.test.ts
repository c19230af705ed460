import { ResourceModel, idapRef, resourceId, type ResourceType } from '../../src/idap/resources/resource.model';
import { siteFor } from '../../src/sandbox/research-site';
import { ADMIN, createClient, startTestApi, type TestApi } from '../support/harness';
import { FAST_RETRIES, RESEARCH_CSV_HEADER, SUBMIT, jobPath, researchPath, waitForStatus } from './support';

let api: TestApi;
let acme: Awaited<ReturnType<typeof createClient>>;
let globex: Awaited<ReturnType<typeof createClient>>;
const RESEARCH = '/api/v1/dashboard/client/research';

beforeAll(async () => {
  api = await startTestApi(FAST_RETRIES);
  const admin = await api.login(ADMIN.email, ADMIN.password);
  acme = await createClient(api, admin, 'Acme Research');
  globex = await createClient(api, admin, 'Globex Research');
});
afterAll(() => api.stop());

async function submit(body: unknown, token = acme.triple) {
  const res = await api.call('POST', `${RESEARCH}/submit`, { token, body });
  expect([res.status, res.body]).toEqual([
    200,
    { research_id: expect.any(String), status: 'queued', created_at: expect.any(String) },
  ]);
  return res.body.research_id as string;
}
const count = (type: ResourceType, jobId: string) =>
  ResourceModel.countDocuments({ client_id: acme.client_id, resource_type: type, source_job_ids: jobId });

describe('company research', () => {
  it('reads each company website and stores contacts, e-mails, phones, profiles and registry entries', async () => {
    const golden = 'golden-bakery-1a2b.example';
    const id = await submit({
      companies: [
        { name: 'Golden Bakery', domain: golden, country_code: 'NL' },
        { name: 'Ghost Corp', domain: 'nosite-corp.example' },
      ],
    });
    const job = await waitForStatus(api, acme.triple, researchPath(id), ['completed', 'failed']);
    expect(job).toMatchObject({
      research_id: id,
      status: 'completed',
      source_job_id: null,
      companies_total: 2,
      progress: { done: 2, total: 2 },
      results_count: 1,
      error: null,
    });
    const site = siteFor(golden);
    const results = await api.call('GET', researchPath(id, 'results'), { token: acme.triple });
    expect(results.body).toMatchObject({ research_id: id, status: 'completed', total: 1, page: 1, page_size: 20 });
    const company = results.body.results[0];
    const registryRef = idapRef(
      'company_registry',
      resourceId(acme.client_id, 'company_registry', `NL:${site.registrationNumber}`),
    );
    expect(company).toMatchObject({
      idap_ref: registryRef,
      name: site.legalName,
      domain: golden,
      country_code: 'NL',
      registration_number: site.registrationNumber,
      linkedin_url: site.linkedinCompany,
      phones: site.phones,
    });
    expect(new Set(company.emails)).toEqual(new Set([...site.emails, ...site.people.map((p) => p.email)]));
    expect(company.contacts).toEqual(
      site.people.map((p) => ({ name: p.name, title: p.title, email: p.email, phone: null, linkedin_url: p.linkedin })),
    );

    expect(await count('contacts', id)).toBe(site.people.length);
    expect(await count('emails', id)).toBe(site.emails.length + site.people.length);
    expect(await count('phones', id)).toBe(2);
    expect(await count('linkedin_profiles', id)).toBe(site.people.length + 1);
    expect(await count('company_registry', id)).toBe(1);
    const domain = await ResourceModel.findOne({
      client_id: acme.client_id,
      _id: resourceId(acme.client_id, 'domains', golden),
    }).lean<any>();
    expect(domain.related).toEqual(
      expect.arrayContaining([
        registryRef,
        ...company.related_refs.filter((r: string) => !r.startsWith('idap://domains/')),
      ]),
    );
    const contact = await ResourceModel.findOne({
      client_id: acme.client_id,
      resource_type: 'contacts',
      'data.name': site.people[0].name,
    }).lean<any>();
    expect(contact.data).toMatchObject({
      title: site.people[0].title,
      email: site.people[0].email,
      linkedin_url: site.people[0].linkedin,
    });
    expect(contact.related).toEqual(
      expect.arrayContaining([
        domain && idapRef('domains', domain._id),
        idapRef('emails', resourceId(acme.client_id, 'emails', site.people[0].email)),
      ]),
    );

    const csv = await api.call('GET', `${researchPath(id, 'results')}?format=csv`, { token: acme.triple });
    const lines = (csv.body as string).trim().split('\r\n');
    expect(lines[0]).toBe(RESEARCH_CSV_HEADER);
    expect(lines[1]).toContain(`${site.people[0].name} (${site.people[0].title}) <${site.people[0].email}>`);
  });

  it('researches the businesses a completed maps-scrape job found, linking findings to each business', async () => {
    const scrape = await api.call('POST', SUBMIT, {
      token: acme.triple,
      body: { query: 'optician', country_code: 'NL', max_locations: 1, max_results: 6 },
    });
    expect(scrape.status).toBe(200);
    const running = await api.call('POST', `${RESEARCH}/submit`, {
      token: acme.triple,
      body: { source_job_id: scrape.body.job_id },
    });
    expect([running.status, running.body.detail]).toEqual([409, expect.stringMatching(/not completed/)]);
    await waitForStatus(api, acme.triple, jobPath(scrape.body.job_id), ['completed']);
    const other = await api.call('POST', `${RESEARCH}/submit`, {
      token: globex.triple,
      body: { source_job_id: scrape.body.job_id },
    });
    expect(other.status).toBe(404);

    const id = await submit({ source_job_id: scrape.body.job_id });
    const job = await waitForStatus(api, acme.triple, researchPath(id), ['completed', 'failed']);
    const withSite = (
      await api.call('GET', jobPath(scrape.body.job_id, 'results'), { token: acme.triple })
    ).body.results.filter((b: any) => b.website);
    expect(job).toMatchObject({
      status: 'completed',
      source_job_id: scrape.body.job_id,
      companies_total: withSite.length,
      results_count: withSite.length,
    });
    const business = await ResourceModel.findOne({
      client_id: acme.client_id,
      _id: withSite[0].idap_ref.split('/').pop(),
    }).lean<any>();
    expect(business.related.some((r: string) => r.startsWith('idap://contacts/'))).toBe(true);
    expect(business.related.some((r: string) => r.startsWith('idap://company_registry/'))).toBe(true);
  });

  it('finds the website of a company listed without a domain through the maps provider', async () => {
    const id = await submit({ companies: [{ name: 'Happy Florist', country_code: 'NL' }] });
    const job = await waitForStatus(api, acme.triple, researchPath(id), ['completed', 'failed']);
    expect(job).toMatchObject({ status: 'completed', results_count: 1 });
    const result = (await api.call('GET', researchPath(id, 'results'), { token: acme.triple })).body.results[0];
    expect(result.domain).toMatch(/\.example$/);
    expect(result.contacts.length).toBeGreaterThan(0);
  });

  it('fails the job with the reason when the research provider refuses a request', async () => {
    const id = await submit({ companies: [{ name: 'Locked', domain: 'locked-sbx-fail-401.example' }] });
    const job = await waitForStatus(api, acme.triple, researchPath(id), ['completed', 'failed']);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/research provider: request rejected \(401\)/);
  });

  it('rejects invalid bodies with 422 and keeps research jobs to their client', async () => {
    const bad = [
      { companies: [] },
      { companies: Array.from({ length: 501 }, (_, i) => ({ name: `c${i}` })) },
      { companies: [{ name: 'x' }], source_job_id: '00000000-0000-4000-8000-000000000000' },
      { companies: [{ name: 'x', country_code: 'nl' }] },
      { source_job_id: 'not-a-uuid' },
      {},
    ];
    for (const body of bad)
      expect([(await api.call('POST', `${RESEARCH}/submit`, { token: acme.triple, body })).status, body]).toEqual([
        422,
        body,
      ]);
    const missing = await api.call('POST', `${RESEARCH}/submit`, {
      token: acme.triple,
      body: { source_job_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(missing.status).toBe(404);
    const mine = (await api.call('GET', RESEARCH, { token: acme.triple })).body;
    expect(mine.total).toBeGreaterThanOrEqual(4);
    expect(mine.research_jobs.every((j: any) => j.client_id === acme.client_id)).toBe(true);
    const theirs = await api.call('GET', researchPath(mine.research_jobs[0].research_id), { token: globex.triple });
    expect(theirs.status).toBe(404);
    const failed = await api.call('GET', `${RESEARCH}?status=failed`, { token: acme.triple });
    expect(failed.body.research_jobs.map((j: any) => j.status)).toEqual(['failed']);
    // A maps-scrape job is not a research job, and the other way round.
    const scrapeId = (await api.call('GET', '/api/v1/dashboard/client/jobs', { token: acme.triple })).body.jobs[0]
      .job_id;
    expect((await api.call('GET', researchPath(scrapeId), { token: acme.triple })).status).toBe(404);
    expect((await api.call('GET', jobPath(mine.research_jobs[0].research_id), { token: acme.triple })).status).toBe(
      404,
    );
  });
});
