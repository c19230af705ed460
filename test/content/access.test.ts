import { startTestApi, type TestApi } from '../support/harness';
import { agentToken, author, createSite, doc, type Site } from './content-helpers';

describe('who may author and publish content', () => {
  let api: TestApi;
  let admin: string;
  let site: Site;

  beforeAll(async () => {
    api = await startTestApi();
    admin = await api.login();
    site = await createSite(api, admin, 'Access Co', 'access.example');
  });
  afterAll(() => api.stop());

  it('answers 401 without credentials or with a wrong triple, on every authoring operation', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const calls: [string, string, unknown][] = [
      ['POST', 'authors', { full_name: 'A' }],
      ['POST', 'tags', { name: 'T' }],
      ['POST', 'categories', { name: 'C' }],
      ['POST', 'posts', { slug: 'p', title: 'P', body: doc('x') }],
      ['POST', 'pages', { title: 'P' }],
      ['PATCH', `pages/${id}`, { title: 'P' }],
      ['POST', `posts/${id}/publish`, undefined],
      ['POST', `pages/${id}/publish`, undefined],
    ];
    const wrong = `${site.client_id}:${site.api_key}:not-the-secret`;
    for (const [method, path, body] of calls) {
      for (const token of [undefined, wrong, 'garbage']) {
        const res = await api.call(method, `/api/v1/dashboard/content/${path}`, { token, body });
        expect({ path, token, status: res.status }).toEqual({ path, token, status: 401 });
        expect(typeof res.body.detail).toBe('string');
      }
    }
  });

  it('accepts a dashboard user of the client, acting for that client', async () => {
    const user = await api.call('POST', '/api/v1/dashboard/users', {
      token: admin,
      body: {
        email: 'editor@access.example',
        role: 'client_user',
        client_id: site.client_id,
        password: 'editor-password-1',
      },
    });
    expect(user.status).toBe(201);
    const session = await api.login('editor@access.example', 'editor-password-1');
    const tag = await author(api, session).create('tags', { name: 'From the dashboard' });
    // The record belongs to the user's client: the client's own triple sees the slug as taken.
    expect((await author(api, site.triple).post('tags', { name: 'From the dashboard' })).status).toBe(409);
    expect(tag.slug).toBe('from-the-dashboard');
  });

  it('lets a super_admin author for the client X-Selected-Client-Id names, and answers 422 without one', async () => {
    const without = await author(api, admin).post('tags', { name: 'Admin tag' });
    expect(without.status).toBe(422);
    expect(without.body.detail).toMatch(/X-Selected-Client-Id/);
    const unknown = await author(api, admin, { 'x-selected-client-id': '00000000-0000-4000-8000-000000000000' }).post(
      'tags',
      { name: 'Admin tag' },
    );
    expect(unknown.status).toBe(422);
    const chosen = author(api, admin, { 'x-selected-client-id': site.client_id });
    const post = await chosen.create('posts', { slug: 'by-the-admin', title: 'By the admin', body: doc('x') });
    expect((await chosen.publish('posts', post.id)).status).toBe('published');
    expect(
      (await author(api, site.triple).post('posts', { slug: 'by-the-admin', title: 'By the admin', body: doc('x') }))
        .status,
    ).toBe(409);
  });

  it('needs content:write for authoring and content:deploy for publishing with an access token', async () => {
    const writer = author(api, await agentToken(site.client_id, ['content:write']));
    const deployer = author(api, await agentToken(site.client_id, ['content:deploy']));
    const reader = author(api, await agentToken(site.client_id, ['content:read', 'jobs:read']));

    const post = await writer.create('posts', {
      slug: 'agent-post',
      title: 'Agent post',
      body: doc('Written by an agent.'),
    });
    const page = await writer.create('pages', { title: 'Agent page' });
    expect((await writer.patch(`pages/${page.id}`, { description: 'changed' })).status).toBe(200);
    expect((await writer.post(`posts/${post.id}/publish`)).status).toBe(403);
    expect((await writer.post(`pages/${page.id}/publish`)).status).toBe(403);

    expect((await deployer.post('tags', { name: 'Deployer tag' })).status).toBe(403);
    expect((await deployer.publish('posts', post.id)).status).toBe('published');
    expect((await deployer.publish('pages', page.id)).status).toBe('published');

    expect((await reader.post('tags', { name: 'Reader tag' })).status).toBe(403);
    expect((await reader.post(`posts/${post.id}/publish`)).status).toBe(403);
  });
});
