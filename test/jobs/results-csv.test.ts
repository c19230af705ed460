import { randomUUID } from 'node:crypto';
import { JobItemModel, JobModel, jobItemId } from '../../src/jobs/job.model';
import { createClient, useTestApi } from '../support/harness';
import { RESEARCH_CSV_HEADER, jobPath, researchPath } from './support';

const ctx = useTestApi();

/** A completed job of `type` whose results are `rows`, stored as the workflow would have left them. */
async function completedJob(clientId: string, type: 'maps-scrape' | 'research', rows: Record<string, unknown>[]) {
  const id = randomUUID();
  const at = new Date();
  await JobModel.collection.insertOne({
    _id: id as never,
    client_id: clientId,
    type,
    status: 'completed',
    params: type === 'research' ? { companies: [] } : { query: 'x', country_code: 'NL' },
    progress: { done: rows.length, total: rows.length },
    results_count: rows.length,
    control_seq: 0,
    events_sent: [],
    webhook_url: null,
    started_at: at,
    completed_at: at,
    created_at: at,
    updated_at: at,
  });
  await JobItemModel.collection.insertMany(
    rows.map((data, seq) => ({
      _id: jobItemId(id, 'result', seq) as never,
      client_id: clientId,
      job_id: id,
      kind: 'result',
      seq,
      found: true,
      data,
      created_at: at,
      updated_at: at,
    })),
  );
  return id;
}

/** The cells after a business's name, each of which would start a formula unescaped (and a few that would not). */
const FORMULA_CELLS = [
  "'+cmd|/C calc!A0",
  "'-2+3",
  'NL',
  "'@SUM(A1)",
  '-52.1',
  '5.1',
  "'+31 30 123 4567",
  "'\thttps://x.test",
  '4.5',
  '0',
];

describe('job and research results as CSV', () => {
  it('neutralise every formula lead character (= + - @ tab CR) as the shift export does, lists too', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Results Csv');
    const business = {
      idap_ref: 'idap://businesses/b1',
      name: '=HYPERLINK("http://evil.test","x")',
      category: '+cmd|/C calc!A0',
      address: '-2+3',
      country_code: 'NL',
      region_code: '@SUM(A1)',
      lat: -52.1,
      lng: 5.1,
      phone: '+31 30 123 4567',
      website: '\thttps://x.test',
      rating: 4.5,
      reviews_count: 0,
    };
    const jobId = await completedJob(acme.client_id, 'maps-scrape', [
      business,
      { ...business, idap_ref: 'idap://businesses/b2', name: '\r=1+1' },
    ]);
    const jobCsv = await ctx.api.call('GET', `${jobPath(jobId, 'results')}?format=csv`, { token: acme.triple });
    expect(jobCsv.status).toBe(200);
    expect(jobCsv.body).toBe(
      [
        'idap_ref,name,category,address,country_code,region_code,lat,lng,phone,website,rating,reviews_count',
        // Each row's cells: every one that could start a formula begins with a quote.
        [`idap://businesses/b1`, `"'=HYPERLINK(""http://evil.test"",""x"")"`, ...FORMULA_CELLS].join(','),
        [`idap://businesses/b2`, `"'\r=1+1"`, ...FORMULA_CELLS].join(','),
        '',
      ].join('\r\n'),
    );

    const company = {
      idap_ref: 'idap://company_registry/c1',
      name: 'Acme B.V.',
      domain: 'acme.test',
      country_code: 'NL',
      registration_number: '-12345678',
      industry: null,
      employees: null,
      description: '@import url(evil)',
      linkedin_url: null,
      emails: ['=1+1@evil.test', 'info@acme.test'],
      phones: ['+31 6 1234 5678'],
      contacts: [{ name: '-Ada', title: 'CEO', email: 'ada@acme.test', phone: null, linkedin_url: null }],
    };
    const researchId = await completedJob(acme.client_id, 'research', [company]);
    const researchCsv = await ctx.api.call('GET', `${researchPath(researchId, 'results')}?format=csv`, {
      token: acme.triple,
    });
    expect(researchCsv.status).toBe(200);
    expect(researchCsv.body).toBe(
      [
        RESEARCH_CSV_HEADER,
        [
          'idap://company_registry/c1',
          'Acme B.V.',
          'acme.test',
          'NL',
          "'-12345678",
          '',
          '',
          "'@import url(evil)",
          '',
          "'=1+1@evil.test; info@acme.test",
          "'+31 6 1234 5678",
          "'-Ada (CEO) <ada@acme.test>",
        ].join(','),
        '',
      ].join('\r\n'),
    );
  });
});
