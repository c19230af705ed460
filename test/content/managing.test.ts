import { startTestApi, type TestApi } from '../support/harness';
import { author, createSite, doc, type Site } from './content-helpers';

/** The console's authoring reads and changes: lists with drafts, one post or page, updates, deletes, unpublishing. */
describe('content management (lists, updates, deletes, unpublish)', () => {
  let api: TestApi;
  let admin: string;
  let site: Site;
  let other: Site;
  let as: ReturnType<typeof author>;

  const call = (method: string, path: string, body?: unknown, token = site.triple) =>
    api.call(method, `/api/v1/dashboard/content/${path}`, { token, body });
  const publicRead = (path: string) =>
    api.call('GET', `/api/v1/content/${path}`, { headers: { 'x-content-domain': site.domain } });

  beforeAll(async () => {
    api = await startTestApi();
    admin = await api.login();
    site = await createSite(api, admin, 'Manage', 'manage.example');
    other = await createSite(api, admin, 'Other', 'other-manage.example');
    as = author(api, site.triple);
  });
  afterAll(() => api.stop());

  it('lists authors, tags and categories; updates and deletes them; another client sees none of them', async () => {
    const a = await as.create('authors', { full_name: 'Ada Baker' });
    const t = await as.create('tags', { name: 'Bread' });
    const c = await as.create('categories', { name: 'News' });
    const post = await as.create('posts', {
      title: 'Loaves',
      slug: 'loaves',
      body: doc('Hi'),
      author_id: a.id,
      tag_ids: [t.id],
      category_ids: [c.id],
    });
    expect((await call('GET', 'authors')).body).toMatchObject({ authors: [{ id: a.id }], total: 1, page: 1 });
    expect((await call('GET', 'tags')).body.tags).toEqual([
      { id: t.id, name: 'Bread', slug: 'bread', description: null },
    ]);
    expect((await call('GET', 'categories')).body.categories).toHaveLength(1);
    expect((await call('GET', 'tags', undefined, other.triple)).body.tags).toEqual([]);

    expect((await call('PATCH', `tags/${t.id}`, { name: 'Breads', description: 'All loaves' })).body).toMatchObject({
      name: 'Breads',
      slug: 'bread',
      description: 'All loaves',
    });
    expect((await call('PATCH', `authors/${a.id}`, { is_active: false })).body.is_active).toBe(false);
    await as.create('categories', { name: 'Taken' });
    expect((await call('PATCH', `categories/${c.id}`, { slug: 'taken' })).status).toBe(409);
    expect((await call('PATCH', `tags/${t.id}`, { name: 'X' }, other.triple)).status).toBe(404);

    expect((await call('DELETE', `tags/${t.id}`)).status).toBe(204);
    expect((await call('DELETE', `categories/${c.id}`)).status).toBe(204);
    expect((await call('DELETE', `authors/${a.id}`)).status).toBe(204);
    expect((await call('DELETE', `authors/${a.id}`)).status).toBe(404);
    expect((await call('GET', `posts/${post.id}`)).body).toMatchObject({ author: null, tags: [], categories: [] });
  });

  it('lists drafts and published posts with filters, reads one with its rendered HTML, updates it', async () => {
    const tag = await as.create('tags', { name: 'Spring' });
    const draft = await as.create('posts', { title: 'Spring draft', slug: 'spring-draft', body: doc('One') });
    const live = await as.create('posts', {
      title: 'Summer live',
      slug: 'summer-live',
      body: doc('Two'),
      tag_ids: [tag.id],
    });
    await as.publish('posts', live.id);
    const slugs = async (query: string) =>
      ((await call('GET', `posts?${query}`)).body.posts as { slug: string }[]).map((p) => p.slug).sort();
    expect(await slugs('status=draft')).toEqual(expect.arrayContaining(['spring-draft']));
    expect(await slugs('status=draft')).not.toContain('summer-live');
    expect(await slugs('status=published')).toEqual(['summer-live']);
    expect(await slugs('tag=spring')).toEqual(['summer-live']);
    expect(await slugs('q=SPRING')).toEqual(['spring-draft']);
    expect(await slugs('tag=no-such-tag')).toEqual([]);

    const read = await call('GET', `posts/${draft.id}?format=html`);
    expect(read.body).toMatchObject({ status: 'draft', body_html: '<p>One</p>', body: doc('One') });
    expect((await call('GET', `posts/${draft.id}`)).body.body_html).toBeUndefined();

    const body = {
      type: 'doc',
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Bold', marks: [{ type: 'bold' }] }] },
      ],
    };
    const updated = await call('PATCH', `posts/${live.id}`, {
      body,
      tags: ['Fresh'],
      cover_image_url: null,
      excerpt: null,
    });
    expect(updated.body).toMatchObject({
      status: 'published',
      body,
      tags: ['Fresh'],
      cover_image_url: null,
      excerpt: 'Bold',
    });
    expect((await publicRead('posts/summer-live?format=html')).body.body_html).toBe('<h2><strong>Bold</strong></h2>');
    expect((await call('PATCH', `posts/${live.id}`, { slug: 'spring-draft' })).status).toBe(409);
    expect((await call('PATCH', `posts/${live.id}`, { body: { type: 'paragraph' } })).status).toBe(400);
    expect((await call('GET', `posts/${live.id}`, undefined, other.triple)).status).toBe(404);
  });

  it('unpublishes a post and a page (they leave the public reads) and deletes them', async () => {
    const post = await as.create('posts', { title: 'Gone soon', slug: 'gone-soon', body: doc('Bye') });
    await as.publish('posts', post.id);
    expect((await publicRead('posts/gone-soon')).status).toBe(200);
    const back = await call('POST', `posts/${post.id}/unpublish`);
    expect(back.body).toMatchObject({ status: 'draft', published_at: null });
    expect((await publicRead('posts/gone-soon')).status).toBe(404);

    const page = await as.create('pages', { title: 'About', blocks: [{ type: 'text', data: { markdown: 'Hi' } }] });
    await as.publish('pages', page.id);
    expect((await call('GET', 'pages?status=published')).body.pages.map((p: { id: string }) => p.id)).toEqual([
      page.id,
    ]);
    expect((await call('GET', `pages/${page.id}`)).body).toMatchObject({ title: 'About', status: 'published' });
    expect((await call('POST', `pages/${page.id}/unpublish`)).body.status).toBe('draft');
    expect((await publicRead('pages/about')).status).toBe(404);

    expect((await call('DELETE', `posts/${post.id}`)).status).toBe(204);
    expect((await call('GET', `posts/${post.id}`)).status).toBe(404);
    expect((await call('DELETE', `pages/${page.id}`)).status).toBe(204);
    expect((await call('GET', `pages/${page.id}`)).status).toBe(404);
  });

  it("tells the client its content domains (the preview's X-Content-Domain)", async () => {
    expect((await call('GET', 'site')).body).toEqual({ content_domains: ['manage.example'] });
  });
});
