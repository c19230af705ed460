import { temporalRunUrl } from '../../src/jobs/temporal-link';
import { ADMIN, createClient, startTestApi, type TestApi } from '../support/harness';
import { SUBMIT, jobPath, researchPath } from './support';

describe("a job's run in the Temporal Web UI", () => {
  it('is the workflow under the namespace, once, whether the UI URL names the namespace or not', () => {
    expect(temporalRunUrl('http://127.0.0.1:8233', 'default', 'abc')).toBe(
      'http://127.0.0.1:8233/namespaces/default/workflows/abc',
    );
    expect(temporalRunUrl('https://cloud.temporal.io/namespaces/leads.a1b2c/', 'leads.a1b2c', 'abc')).toBe(
      'https://cloud.temporal.io/namespaces/leads.a1b2c/workflows/abc',
    );
    expect(temporalRunUrl(null, 'default', 'abc')).toBeNull();
  });

  describe('in the status answers', () => {
    let api: TestApi;
    let admin: string;
    let acme: Awaited<ReturnType<typeof createClient>>;
    beforeAll(async () => {
      api = await startTestApi({ TEMPORAL_UI_URL: 'http://temporal-ui.example:8233' });
      admin = await api.login(ADMIN.email, ADMIN.password);
      acme = await createClient(api, admin, 'Acme Run Links');
    });
    afterAll(() => api.stop());

    it('are given to a super_admin only, for maps-scrape and research jobs alike', async () => {
      const job = await api.call('POST', SUBMIT, {
        token: acme.triple,
        body: { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 1 },
      });
      const research = await api.call('POST', '/api/v1/dashboard/client/research/submit', {
        token: acme.triple,
        body: { companies: [{ name: 'Bakkerij de Zon', domain: 'dezon.example' }] },
      });
      const asOperator = { token: admin, headers: { 'x-selected-client-id': acme.client_id } };
      const ns = api.config.TEMPORAL_NAMESPACE;
      for (const [path, id] of [
        [jobPath(job.body.job_id), job.body.job_id],
        [researchPath(research.body.research_id), research.body.research_id],
      ]) {
        const operator = await api.call('GET', path, asOperator);
        expect(operator.status).toBe(200);
        expect(operator.body.temporal_run_url).toBe(`http://temporal-ui.example:8233/namespaces/${ns}/workflows/${id}`);
        const client = await api.call('GET', path, { token: acme.triple });
        expect(client.status).toBe(200);
        expect(client.body).not.toHaveProperty('temporal_run_url');
      }
      // Not in the list either: the link is the status answer's.
      const list = await api.call('GET', '/api/v1/dashboard/client/jobs', asOperator);
      expect(list.body.jobs[0]).not.toHaveProperty('temporal_run_url');
    });
  });
});
