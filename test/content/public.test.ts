import { AuthorModel } from '../../src/content/author.model';
import { PostModel } from '../../src/content/post.model';
import { startTestApi, type TestApi } from '../support/harness';
import { author, createSite, doc, publicGet, type Site } from './content-helpers';

describe('public content reads', () => {
  let api: TestApi;
  let site: Site;
  let other: Site;
  let as: ReturnType<typeof author>;
  const D = 'blog.example';

  beforeAll(async () => {
    api = await startTestApi();
    const admin = await api.login();
    site = await createSite(api, admin, 'Blog', D);
    other = await createSite(api, admin, 'Other Blog', 'other-blog.example');
    as = author(api, site.triple);
  });
  afterAll(() => api.stop());

  it('answers 422 without X-Content-Domain (docs/decisions.md §3) and 404 for a domain no client serves', async () => {
    for (const path of ['authors', 'posts', 'posts/x', 'pages', 'pages/x', 'categories', 'tags']) {
      const missing = await publicGet(api, null, path);
      expect({ path, status: missing.status }).toEqual({ path, status: 422 });
      expect(missing.body.detail).toMatch(/X-Content-Domain/);
      const unknown = await publicGet(api, 'nobody.example', path);
      expect({ path, status: unknown.status, detail: unknown.body.detail }).toEqual({
        path,
        status: 404,
        detail: 'Unknown content domain',
      });
    }
  });

  it('lists active authors with the public role and agent_type, paginated with defaults 1 and 20', async () => {
    await as.create('authors', { full_name: 'Ada Admin', role: 'administrator' });
    await as.create('authors', { full_name: 'Bo Bot', role: 'editor', agent_type: 'ai' });
    await as.create('authors', { full_name: 'Cy Contributor', role: 'contributor' });
    await as.create('authors', { full_name: 'Di Default' });
    const gone = await as.create('authors', { full_name: 'Ex Employee' });
    // setup: no API deactivates
    await AuthorModel.updateOne({ client_id: site.client_id, _id: gone.id }, { is_active: false });
    await author(api, other.triple).create('authors', { full_name: 'Other Writer' });
    await as.create('tags', { name: 'bump' }); // any change invalidates the cache

    const res = await publicGet(api, D, 'authors');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 4, page: 1, page_size: 20 });
    expect(res.body.authors.map((a: any) => [a.full_name, a.role, a.agent_type])).toEqual([
      ['Ada Admin', 'admin', null],
      ['Bo Bot', 'editor', 'ai'],
      ['Cy Contributor', 'contributor', null],
      ['Di Default', 'contributor', null],
    ]);
    expect(Object.keys(res.body.authors[0]).sort()).toEqual([
      'agent_type',
      'avatar_url',
      'bio',
      'city',
      'country',
      'email',
      'full_name',
      'id',
      'role',
      'slug',
    ]);

    const second = await publicGet(api, D, 'authors?page=2&page_size=3');
    expect(second.body).toMatchObject({ total: 4, page: 2, page_size: 3, authors: [{ full_name: 'Di Default' }] });
    expect((await publicGet(api, D, 'authors?page_size=101')).status).toBe(422);
    expect((await publicGet(api, D, 'authors?page=0')).status).toBe(422);
  });

  it('shows only published posts and pages of the site, never drafts or another client’s', async () => {
    const draft = await as.create('posts', { slug: 'secret-draft', title: 'Draft', body: doc('x') });
    const theirs = author(api, other.triple);
    const foreign = await theirs.create('posts', { slug: 'foreign', title: 'Foreign', body: doc('x') });
    await theirs.publish('posts', foreign.id);
    const foreignPage = await theirs.create('pages', { slug: 'foreign-page', title: 'Foreign page' });
    await theirs.publish('pages', foreignPage.id);
    const draftPage = await as.create('pages', { slug: 'draft-page', title: 'Draft page' });

    expect((await publicGet(api, D, 'posts/secret-draft')).status).toBe(404);
    expect((await publicGet(api, D, 'posts/foreign')).status).toBe(404);
    expect((await publicGet(api, D, 'pages/draft-page')).status).toBe(404);
    expect((await publicGet(api, D, 'pages/foreign-page')).status).toBe(404);
    const posts = await publicGet(api, D, 'posts');
    expect(posts.body.posts.map((p: any) => p.slug)).not.toEqual(expect.arrayContaining(['secret-draft']));
    expect(posts.body.posts.map((p: any) => p.slug)).not.toContain('foreign');
    expect((await publicGet(api, 'other-blog.example', 'posts/foreign')).status).toBe(200);
    expect((await publicGet(api, 'other-blog.example', 'pages/foreign-page')).status).toBe(200);

    await as.publish('posts', draft.id);
    await as.publish('pages', draftPage.id);
    expect((await publicGet(api, D, 'posts/secret-draft')).body).toMatchObject({
      slug: 'secret-draft',
      status: 'published',
    });
    expect((await publicGet(api, D, 'pages')).body.pages.map((p: any) => p.slug)).toContain('draft-page');
  });

  it('filters posts by tag, category, author and featured, newest first', async () => {
    const cat = await as.create('categories', { name: 'Recipes' });
    const chef = await as.create('authors', { full_name: 'Chef Remy' });
    const a = await as.create('posts', {
      slug: 'f-one',
      title: 'One',
      body: doc('x'),
      tags: ['Sourdough'],
      category_ids: [cat.id],
      author_id: chef.id,
      is_featured: true,
    });
    const b = await as.create('posts', { slug: 'f-two', title: 'Two', body: doc('x'), tags: ['Sourdough', 'Rye'] });
    const c = await as.create('posts', {
      slug: 'f-three',
      title: 'Three',
      body: doc('x'),
      tags: ['Rye'],
      author_id: chef.id,
    });
    for (const p of [a, b, c]) await as.publish('posts', p.id);

    const slugs = async (q: string) => (await publicGet(api, D, `posts?${q}`)).body.posts.map((p: any) => p.slug);
    expect(await slugs('tag=sourdough')).toEqual(['f-two', 'f-one']);
    expect(await slugs('tag=rye')).toEqual(['f-three', 'f-two']);
    expect(await slugs('category=recipes')).toEqual(['f-one']);
    expect(await slugs('author=chef-remy')).toEqual(['f-three', 'f-one']);
    expect(await slugs('author=chef-remy&featured=true')).toEqual(['f-one']);
    expect(await slugs('tag=rye&featured=false')).toEqual(['f-three', 'f-two']);
    expect(await slugs('tag=no-such-tag')).toEqual([]);
    const list = await publicGet(api, D, 'posts?tag=sourdough&page_size=1');
    expect(list.body).toMatchObject({ total: 2, page: 1, page_size: 1 });
    expect(list.body.posts[0]).toMatchObject({
      slug: 'f-two',
      tags: ['Sourdough', 'Rye'],
      status: 'published',
      author: null,
    });
    expect(list.body.posts[0].body).toBeUndefined(); // lists carry no body
  });

  it('serves one post with published related posts, counts views atomically, renders HTML on request', async () => {
    const hidden = await as.create('posts', { slug: 'rel-draft', title: 'Draft relative', body: doc('x') });
    const shown = await as.create('posts', { slug: 'rel-live', title: 'Live relative', body: doc('x') });
    await as.publish('posts', shown.id);
    const body = {
      type: 'doc',
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Tips & <tricks>' }] },
        {
          type: 'paragraph',
          content: [
            { type: 'text', text: 'Read ' },
            {
              type: 'text',
              text: 'this',
              marks: [{ type: 'link', attrs: { href: 'https://example.com/?a=1&b=2' } }, { type: 'bold' }],
            },
            { type: 'text', text: ' not that', marks: [{ type: 'link', attrs: { href: 'javascript:alert(1)' } }] },
          ],
        },
        { type: 'image', attrs: { src: 'data:image/png;base64,AAAA', alt: 'x' } },
        { type: 'image', attrs: { src: 'https://cdn.example/i.webp', alt: 'A "quoted" alt' } },
        { type: 'scriptish', content: [{ type: 'text', text: '<script>alert(1)</script>' }] },
      ],
    };
    const p = await as.create('posts', { slug: 'rich', title: 'Rich', body, related_post_ids: [hidden.id, shown.id] });
    await as.publish('posts', p.id);

    const first = await publicGet(api, D, 'posts/rich');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ slug: 'rich', view_count: 1, related_posts: [{ slug: 'rel-live' }] });
    expect(first.body.related_posts).toHaveLength(1);
    expect(first.body.body_html).toBeUndefined();

    const reads = await Promise.all(Array.from({ length: 20 }, () => publicGet(api, D, 'posts/rich')));
    // Each response shows the live count at its moment (concurrent reads may show the same number);
    // every one is counted, and the stored total is exact.
    for (const r of reads) expect(r.body.view_count).toBeGreaterThanOrEqual(2);
    for (const r of reads) expect(r.body.view_count).toBeLessThanOrEqual(21);
    // MongoDB's total is exact: reads served from the cache store their $incs in the background (at most every
    // BACKGROUND_WRITE_MS per post), and a stopping process writes what it holds (the module's close, run at stop).
    await api.rt.modules.content.close();
    expect((await PostModel.findOne({ client_id: site.client_id, slug: 'rich' }).lean())!.view_count).toBe(21);

    const html = await publicGet(api, D, 'posts/rich?format=html');
    expect(html.body.body_html).toBe(
      '<h2>Tips &amp; &lt;tricks&gt;</h2>' +
        '<p>Read <strong><a href="https://example.com/?a=1&amp;b=2" rel="noopener noreferrer nofollow">' +
        'this</a></strong> not that</p>' +
        '<img src="https://cdn.example/i.webp" alt="A &quot;quoted&quot; alt" loading="lazy">' +
        '&lt;script&gt;alert(1)&lt;/script&gt;',
    );
    expect((await publicGet(api, D, 'posts/rich?format=xml')).status).toBe(422);
  });

  it('lists categories, tags and pages of the site in order', async () => {
    const cats = await publicGet(api, D, 'categories');
    expect(cats.body.categories.map((c: any) => c.name)).toEqual(['Recipes']);
    const tags = await publicGet(api, D, 'tags?page_size=100');
    expect(tags.body.tags.map((t: any) => t.slug)).toEqual(expect.arrayContaining(['sourdough', 'rye', 'bump']));
    expect(tags.body).toMatchObject({ page: 1, page_size: 100, total: tags.body.tags.length });

    const late = await as.create('pages', {
      slug: 'zz-first',
      title: 'First by order',
      sort_order: -1,
      blocks: [{ type: 'hero', data: { h: 1 } }],
    });
    await as.publish('pages', late.id);
    const pages = await publicGet(api, D, 'pages');
    expect(pages.body.pages[0]).toMatchObject({
      slug: 'zz-first',
      blocks: [{ type: 'hero', data: { h: 1 } }],
      status: 'published',
    });
    expect((await publicGet(api, D, 'pages/zz-first')).body).toMatchObject({ title: 'First by order' });
  });

  it('sends ETag, Cache-Control and Vary, and answers 304 to a matching If-None-Match', async () => {
    for (const path of ['posts', 'posts/rich', 'authors', 'pages/zz-first', 'tags', 'categories', 'pages']) {
      const res = await publicGet(api, D, path);
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^W\/".+"$/);
      expect(res.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
      expect(res.headers.get('vary')).toMatch(/X-Content-Domain/i);
      const again = await publicGet(api, D, path, { 'if-none-match': etag });
      expect({ path, status: again.status }).toEqual({ path, status: 304 });
      expect(again.body).toBeNull();
      expect(again.headers.get('etag')).toBe(etag);
      // Compared weakly (RFC 9110 §13.1.2): the strong form matches too, as does one tag of a list, or *.
      for (const current of [etag.slice(2), `"x", ${etag}`, '*'])
        expect({ path, current, status: (await publicGet(api, D, path, { 'if-none-match': current })).status }).toEqual(
          { path, current, status: 304 },
        );
      expect((await publicGet(api, D, path, { 'if-none-match': 'W/"stale"' })).status).toBe(200);
    }
  });

  it('serves repeated reads from the cache and invalidates it on publish and on change', async () => {
    const post = await as.create('posts', { slug: 'cache-me', title: 'Cached title', body: doc('x') });
    await as.publish('posts', post.id);
    const before = await publicGet(api, D, 'posts?page_size=100');
    // Changed behind the service's back: the cached answer is still served...
    await PostModel.updateOne({ client_id: site.client_id, _id: post.id }, { title: 'Changed in the database' });
    const cached = await publicGet(api, D, 'posts?page_size=100');
    expect(cached.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(cached.body.posts.find((p: any) => p.slug === 'cache-me').title).toBe('Cached title');

    // ...until a publish bumps the client's cache version.
    const next = await as.create('posts', { slug: 'cache-next', title: 'Next', body: doc('x') });
    await as.publish('posts', next.id);
    const fresh = await publicGet(api, D, 'posts?page_size=100');
    expect(fresh.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(fresh.body.posts.slice(0, 2).map((p: any) => [p.slug, p.title])).toEqual([
      ['cache-next', 'Next'],
      ['cache-me', 'Changed in the database'],
    ]);
    expect((await publicGet(api, D, 'posts', { 'if-none-match': before.headers.get('etag')! })).status).toBe(200);

    // A page edit is a change too.
    const page = await as.create('pages', { slug: 'edit-me', title: 'Old' });
    await as.publish('pages', page.id);
    expect((await publicGet(api, D, 'pages/edit-me')).body.title).toBe('Old');
    await as.patch(`pages/${page.id}`, { title: 'New' });
    expect((await publicGet(api, D, 'pages/edit-me')).body.title).toBe('New');
  });

  it('reads that miss the cache together share one load, and none after a change joins it', async () => {
    const find = jest.spyOn(PostModel, 'find');
    try {
      // One cold read: how many post reads one load makes.
      await publicGet(api, D, 'posts?page_size=3');
      const perLoad = find.mock.calls.length;
      expect(perLoad).toBeGreaterThan(0);
      find.mockClear();
      const together = await Promise.all(Array.from({ length: 20 }, () => publicGet(api, D, 'posts?page_size=4')));
      expect(new Set(together.map((r) => r.headers.get('etag'))).size).toBe(1);
      expect(find.mock.calls.length).toBe(perLoad); // twenty misses, one load

      // A publish bumps the version: the next reads load again, and see it.
      const post = await as.create('posts', { slug: 'flight-new', title: 'New in flight', body: doc('x') });
      await as.publish('posts', post.id);
      find.mockClear();
      const after = await Promise.all(Array.from({ length: 5 }, () => publicGet(api, D, 'posts?page_size=4')));
      expect(find.mock.calls.length).toBe(perLoad);
      for (const r of after) expect(r.body.posts[0].slug).toBe('flight-new');
    } finally {
      find.mockRestore();
    }
  });
});
