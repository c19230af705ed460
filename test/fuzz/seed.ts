import { BrandModel } from '../../src/brands/brand.model';
import { seedResources } from '../support/resources';
import { indexLock, type TestApi } from '../support/harness';
import { approvedToken } from '../agents/agent-helpers';

const doc = {
  type: 'doc',
  content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Seeded for the fuzzer.' }] }],
};

/**
 * Records of the fuzz client that the fuzzer's path parameters point at, so operations on one record
 * (status, results, publish, public reads by slug) reach their handlers instead of answering 404 to
 * every random id. Returns schemathesis parameters (`path.<name>` → value). Only string ids: a seeded
 * value replaces the fuzzer's out-of-range integers too, which it would then report as accepted.
 */
export async function seedRecords(api: TestApi, triple: string): Promise<Record<string, string>> {
  const created = async (path: string, body: unknown, field: string) => {
    const res = await api.call('POST', path, { token: triple, body });
    if (res.status < 200 || res.status > 299)
      throw new Error(`fuzz seed: POST ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
    return String(res.body[field]);
  };
  const slug = 'fuzz-seeded';
  const pageId = await created(
    '/api/v1/dashboard/content/pages',
    { slug, title: 'Seeded', blocks: [{ type: 'text', data: { text: 'x' } }] },
    'id',
  );
  const postId = await created('/api/v1/dashboard/content/posts', { slug, title: 'Seeded', body: doc }, 'id');
  for (const [kind, id] of [
    ['pages', pageId],
    ['posts', postId],
  ]) {
    const res = await api.call('POST', `/api/v1/dashboard/content/${kind}/${id}/publish`, { token: triple });
    if (res.status !== 200) throw new Error(`fuzz seed: publishing ${kind} answered ${res.status}`);
  }
  await seedIntegrationExamples(api, triple);
  // A business, so the flag change of one resource reaches it (with the type businesses) and lists are not empty.
  const {
    ids: [resourceId],
  } = await seedResources(
    triple.split(':')[0],
    [{ type: 'businesses', naturalKey: 'fuzz-seeded', data: { name: 'Seeded Bakery' } }],
    indexLock(api),
  );
  return {
    'path.resource_id': resourceId,
    'path.slug': slug,
    'path.page_id': pageId,
    'path.post_id': postId,
    'path.job_id': await created(
      '/api/v1/dashboard/client/jobs/maps-scrape/submit',
      { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 3 },
      'job_id',
    ),
    'path.research_id': await created(
      '/api/v1/dashboard/client/research/submit',
      { companies: [{ name: 'Seeded Bakery', country_code: 'NL' }] },
      'research_id',
    ),
    'path.watch_id': await created(
      '/api/v1/dashboard/client/watches',
      {
        name: 'Seeded watch',
        maps_scrape: { query: 'bakery', country_code: 'NL' },
        cadence: { interval_seconds: 86400 },
      },
      'watch_id',
    ),
  };
}

/**
 * A brand and an integration key under the contract's example ids (brand 12, integration 301), so the
 * integration operations and the relays (X-Brand-Id 12) reach their handlers. Integer ids are not
 * passed as parameters (a seeded value would replace the fuzzer's out-of-range integers): the
 * examples already carry them.
 */
async function seedIntegrationExamples(api: TestApi, triple: string) {
  await BrandModel.create({ _id: 12, client_id: triple.split(':')[0], brand_name: 'Fuzz brand', slug: 'fuzz-brand' });
  await api.rt.engines.redis.set('integration-id', 300); // the next key is 301
  const res = await api.call('POST', '/api/v1/brands/12/integrations', {
    token: triple,
    body: {
      provider_name: 'maps',
      key_label: 'Fuzz maps key',
      credentials: { api_key: 'fuzz-maps-key-0001' },
      is_primary: true,
    },
  });
  if (res.status !== 201 || res.body.integration_id !== 301)
    throw new Error(`fuzz seed: integration key answered ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * Two approved agents of the fuzz client in the seeded brand 12, for the operations on one agent: an agent user
 * (`path.agent_user_id`: its limits, revocation and rotation), and a token whose brand was taken off it, so that it
 * acts for no brand (`path.token_id`: its own limits, its revocation). Call after seedRecords (which makes brand 12).
 */
export async function seedAgents(
  api: TestApi,
  admin: string,
  client: { client_id: string; admin_email: string; triple: string },
): Promise<Record<string, string>> {
  const brandless = await approvedToken(api, admin, client);
  const agent = await approvedToken(api, admin, client);
  const users = await api.call('GET', '/api/v1/brands/12/agent-users', { token: client.triple });
  const userOf = (tokenId: string) =>
    users.body.agent_users.find((u: { token_id: string }) => u.token_id === tokenId).agent_user_id as string;
  const taken = await api.call('DELETE', `/api/v1/brands/12/agent-users/${userOf(brandless.polled.token_id)}`, {
    token: client.triple,
  });
  if (taken.status !== 200) throw new Error(`fuzz seed: taking the brand off a token answered ${taken.status}`);
  return { 'path.token_id': brandless.polled.token_id, 'path.agent_user_id': userOf(agent.polled.token_id) };
}
