import { startTestApi, type TestApi } from '../support/harness';
import { author, createSite, doc, type Site } from './content-helpers';

describe('content authoring', () => {
  let api: TestApi;
  let admin: string;
  let site: Site;
  let other: Site;
  let as: ReturnType<typeof author>;
  let asOther: ReturnType<typeof author>;

  beforeAll(async () => {
    api = await startTestApi();
    admin = await api.login();
    site = await createSite(api, admin, 'Bakery', 'bakery.example');
    other = await createSite(api, admin, 'Rival', 'rival.example');
    as = author(api, site.triple);
    asOther = author(api, other.triple);
  });
  afterAll(() => api.stop());

  describe('authors', () => {
    it('creates an author with the defaults and a slug from full_name', async () => {
      const a = await as.create('authors', { full_name: 'Marieke de Vries' });
      expect(a).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        full_name: 'Marieke de Vries',
        slug: 'marieke-de-vries',
        role: 'author',
        agent_type: 'human',
        avatar_url: null,
        bio: null,
        email: null,
        country: null,
        city: null,
      });
    });

    it('keeps every field it is given and accepts each role and agent_type', async () => {
      for (const role of ['author', 'editor', 'contributor', 'administrator']) {
        const given = {
          slug: `w-${role}`,
          role,
          agent_type: 'ai',
          avatar_url: 'https://cdn.example/a.webp',
          bio: 'Bio',
          email: 'w@bakery.example',
          country: 'NL',
          city: 'Utrecht',
        };
        expect(await as.create('authors', { full_name: `Writer ${role}`, ...given })).toMatchObject(given);
      }
    });

    it('answers 400 for a missing full_name, an unknown role or agent_type, a bad slug or e-mail', async () => {
      for (const body of [
        {},
        { full_name: '' },
        { full_name: 'X', role: 'boss' },
        { full_name: 'X', agent_type: 'robot' },
        { full_name: 'X', slug: 'Not A Slug' },
        { full_name: 'X', email: 'nope' },
        { full_name: 'X', unknown: 1 },
      ]) {
        const res = await as.post('authors', body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(typeof res.body.detail).toBe('string');
      }
    });

    it('answers 409 for a slug the client already uses, given or generated', async () => {
      await as.create('authors', { full_name: 'Jan Bakker' });
      expect((await as.post('authors', { full_name: 'Jan Bakker' })).status).toBe(409);
      const res = await as.post('authors', { full_name: 'Someone Else', slug: 'jan-bakker' });
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/jan-bakker/);
      expect((await asOther.post('authors', { full_name: 'Jan Bakker' })).status).toBe(201); // per client
    });

    it('transliterates non-Latin names into the slug', async () => {
      expect((await as.create('authors', { full_name: 'Дмитрий Иванов' })).slug).toBe('dmitriy-ivanov');
      expect((await as.create('authors', { full_name: 'Ζωή Παπαδοπούλου' })).slug).toBe('zoi-papadopoyloy');
      expect((await as.create('tags', { name: '東京ガイド' })).slug).toBe('dong-jing-gaido');
      const none = await as.post('tags', { name: '🎉🎉' });
      expect(none.status).toBe(400);
      expect(none.body.detail).toMatch(/slug/);
    });
  });

  describe('tags and categories', () => {
    it('creates them with generated slugs and answers 409 for a duplicate', async () => {
      for (const kind of ['tags', 'categories'] as const) {
        const t = await as.create(kind, { name: 'Crème brûlée & Café' });
        expect(t).toEqual({
          id: expect.any(String),
          name: 'Crème brûlée & Café',
          slug: 'creme-brulee-cafe',
          description: null,
        });
        const d = await as.create(kind, { name: 'Seasonal', slug: 'season', description: 'By season' });
        expect(d).toMatchObject({ slug: 'season', description: 'By season' });
        expect((await as.post(kind, { name: 'Other', slug: 'season' })).status).toBe(409);
        expect((await as.post(kind, { slug: 'no-name' })).status).toBe(400);
      }
    });
  });

  describe('posts', () => {
    it('creates a draft post with every field, author, tags, categories and related posts', async () => {
      const category = await as.create('categories', { name: 'News' });
      const existingTag = await as.create('tags', { name: 'Bread' });
      const idTag = await as.create('tags', { name: 'By Id' });
      const related = await as.create('posts', { slug: 'winter-menu', title: 'Winter menu', body: doc('Soup.') });
      const words = Array.from({ length: 450 }, (_, i) => `word${i}`).join(' ');
      const p = await as.create('posts', {
        slug: 'spring-hours',
        title: 'Spring hours',
        body: doc(words),
        tldr_summary: 'Open at 7',
        cover_image_url: 'https://cdn.example/c.webp',
        featured_image_alt: 'Bread',
        seo_title: 'Spring',
        seo_description: 'Hours',
        author_name: 'Piet Post',
        tags: ['Bread', 'New Tag', 'New Tag'],
        tag_ids: [idTag.id],
        category_ids: [category.id],
        related_post_ids: [related.id],
      });
      expect(p).toMatchObject({
        slug: 'spring-hours',
        title: 'Spring hours',
        status: 'draft',
        published_at: null,
        is_featured: false,
        view_count: 0,
        tldr_summary: 'Open at 7',
        cover_image_url: 'https://cdn.example/c.webp',
        featured_image_alt: 'Bread',
        seo_title: 'Spring',
        seo_description: 'Hours',
        og_image_url: null,
        author: { full_name: 'Piet Post', slug: 'piet-post', avatar_url: null, bio: null },
        categories: [{ id: category.id, name: 'News', slug: 'news' }],
        related_posts: [{ id: related.id, slug: 'winter-menu', title: 'Winter menu', published_at: null }],
        reading_time: 3, // 450 words at 200 words per minute, rounded up
      });
      expect(p.body).toEqual(doc(words));
      expect(p.excerpt.length).toBeLessThanOrEqual(201);
      expect(p.excerpt).toMatch(/^word0 word1 .*…$/);
      expect([...p.tags].sort()).toEqual(['Bread', 'By Id', 'New Tag']);

      // The author and the tag that the post named are reused, not created again.
      const again = await as.create('posts', {
        slug: 'spring-2',
        title: 'Again',
        body: doc('Short.'),
        author_name: 'Piet Post',
        tags: ['new tag', 'Bread'],
      });
      expect(again.author.id).toBe(p.author.id);
      expect([...again.tags].sort()).toEqual(['Bread', 'New Tag']);
      expect(again).toMatchObject({ reading_time: 1, excerpt: 'Short.' });
      expect(existingTag.slug).toBe('bread');
    });

    it('lets author_id take precedence over author_name, and allows no author', async () => {
      const a = await as.create('authors', { full_name: 'Chosen One' });
      const p = await as.create('posts', {
        slug: 'by-id',
        title: 'By id',
        body: doc('x'),
        author_id: a.id,
        author_name: 'Ignored Name',
      });
      expect(p.author).toEqual({ id: a.id, full_name: 'Chosen One', slug: 'chosen-one', avatar_url: null, bio: null });
      const none = await as.create('posts', {
        slug: 'no-author-here',
        title: 'No author here',
        body: doc('x'),
        excerpt: 'Given',
      });
      expect(none).toMatchObject({
        author: null,
        slug: 'no-author-here',
        excerpt: 'Given',
        tags: [],
        categories: [],
        related_posts: [],
      });
    });

    it("answers 400 for another client's or unknown author, tag, category or related post ids", async () => {
      const theirs = {
        author: await asOther.create('authors', { full_name: 'Their Author' }),
        tag: await asOther.create('tags', { name: 'Their Tag' }),
        category: await asOther.create('categories', { name: 'Their Category' }),
        post: await asOther.create('posts', { slug: 'their-post', title: 'Theirs', body: doc('x') }),
      };
      const base = { slug: 'refs', title: 'Refs', body: doc('x') };
      for (const extra of [
        { author_id: theirs.author.id },
        { tag_ids: [theirs.tag.id] },
        { category_ids: [theirs.category.id] },
        { related_post_ids: [theirs.post.id] },
        { tag_ids: ['00000000-0000-4000-8000-000000000000'] },
        { author_id: 'not-a-uuid' },
      ]) {
        const res = await as.post('posts', { ...base, ...extra });
        expect({ extra, status: res.status }).toEqual({ extra, status: 400 });
      }
    });

    it('answers 400 for a missing slug, title or body and for a malformed body', async () => {
      const deep = { type: 'doc', content: [] as unknown[] };
      let node: { type: string; content: unknown[] } = deep;
      for (let i = 0; i < 40; i++) {
        const child = { type: 'blockquote', content: [] as unknown[] };
        node.content.push(child);
        node = child;
      }
      for (const body of [
        { body: doc('x') },
        { title: 'T' },
        { title: 'No slug', body: doc('x') },
        { title: 'T', body: { type: 'paragraph', content: [] } },
        { title: 'T', body: { type: 'doc' } },
        { title: 'T', body: { type: 'doc', content: [{ text: 'no type' }] } },
        { title: 'T', body: { type: 'doc', content: [{ type: 'text', text: 42 }] } },
        { title: 'T', body: { type: 'doc', content: [{ type: 'paragraph', style: 'x' }] } },
        { title: 'T', body: { type: 'doc', content: 'text' } },
        { title: 'T', body: deep },
      ]) {
        const res = await as.post('posts', body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
      }
      const tooDeep = await as.post('posts', { slug: 't', title: 'T', body: deep });
      expect(tooDeep.body.detail).toMatch(/deeper than 32/);
    });

    it('answers 409 for a duplicate slug and creates nothing it named', async () => {
      await as.create('posts', { slug: 'taken', title: 'First', body: doc('x') });
      const res = await as.post('posts', {
        slug: 'taken',
        title: 'Second',
        body: doc('x'),
        author_name: 'Never Created',
        tags: ['never-created'],
      });
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/taken/);
      expect((await as.post('authors', { full_name: 'Never Created' })).status).toBe(201);
      expect((await asOther.post('posts', { slug: 'taken', title: 'Theirs', body: doc('x') })).status).toBe(201);
    });
  });

  describe('pages', () => {
    it('creates a draft page with defaults and a slug from the title', async () => {
      const page = await as.create('pages', { title: 'Über uns' });
      expect(page).toMatchObject({
        slug: 'uber-uns',
        title: 'Über uns',
        description: '',
        blocks: [],
        template: 'default',
        status: 'draft',
        published_at: null,
        sort_order: 0,
        seo_title: null,
        seo_description: null,
        og_image_url: null,
      });
    });

    it('changes only the supplied fields on PATCH and replaces blocks as a whole', async () => {
      const kept = {
        slug: 'about',
        title: 'About',
        description: 'Who we are',
        template: 'wide',
        sort_order: 3,
        seo_title: 'SEO',
      };
      const page = await as.create('pages', {
        ...kept,
        blocks: [
          { type: 'hero', data: { heading: 'Hi' } },
          { type: 'text', data: { markdown: 'a' } },
        ],
      });
      const blocks = [{ type: 'cta', data: { label: 'Order' } }];
      const patched = (await as.patch(`pages/${page.id}`, { blocks })).body;
      expect(patched).toMatchObject({ id: page.id, ...kept, blocks });
      const renamed = await as.patch(`pages/${page.id}`, { title: 'About us', slug: 'about-us', seo_title: null });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({
        title: 'About us',
        slug: 'about-us',
        seo_title: null,
        blocks: [{ type: 'cta' }],
        description: 'Who we are',
      });
    });

    it('answers 409 for a slug of another page, 404 for an unknown or foreign page, 400 for bad blocks', async () => {
      const a = await as.create('pages', { slug: 'page-a', title: 'A' });
      await as.create('pages', { slug: 'page-b', title: 'B' });
      expect((await as.patch(`pages/${a.id}`, { slug: 'page-b' })).status).toBe(409);
      expect((await as.patch(`pages/${a.id}`, { slug: 'page-a' })).status).toBe(200); // its own slug
      expect((await as.post('pages', { slug: 'page-a', title: 'Dup' })).status).toBe(409);
      expect((await asOther.patch(`pages/${a.id}`, { title: 'Hijack' })).status).toBe(404);
      expect((await as.patch('pages/00000000-0000-4000-8000-000000000000', { title: 'X' })).status).toBe(404);
      for (const body of [
        { blocks: [{ type: 'hero' }] },
        { blocks: [{ data: {} }] },
        { blocks: 'x' },
        {},
        { title: '' },
        { status: 'published' },
      ]) {
        const res = await as.patch(`pages/${a.id}`, body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
      }
    });
  });

  describe('publishing', () => {
    it('publishes a post and a page: status published, published_at set and kept on a repeat', async () => {
      const p = await as.create('posts', { slug: 'to-publish', title: 'To publish', body: doc('x') });
      const published = await as.publish('posts', p.id);
      expect(published).toMatchObject({ id: p.id, status: 'published' });
      expect(Date.parse(published.published_at)).toBeGreaterThan(Date.now() - 60_000);
      expect((await as.publish('posts', p.id)).published_at).toBe(published.published_at);

      const page = await as.create('pages', { slug: 'publish-me', title: 'P' });
      const pub = await as.publish('pages', page.id);
      expect(pub).toMatchObject({ status: 'published', slug: 'publish-me' });
      expect(pub.published_at).toEqual(expect.any(String));
    });

    it("answers 404 for an unknown id or another client's record, 400 for a malformed id", async () => {
      const p = await as.create('posts', { slug: 'mine-only', title: 'Mine only', body: doc('x') });
      const page = await as.create('pages', { slug: 'mine-only', title: 'Mine' });
      expect((await asOther.post(`posts/${p.id}/publish`)).status).toBe(404);
      expect((await asOther.post(`pages/${page.id}/publish`)).status).toBe(404);
      const unknown = await as.post('posts/00000000-0000-4000-8000-000000000000/publish');
      expect(unknown).toMatchObject({ status: 404, body: { detail: 'Post not found' } });
      expect((await as.post('pages/00000000-0000-4000-8000-000000000000/publish')).status).toBe(404);
      expect((await as.post('posts/not-a-uuid/publish')).status).toBe(400);
    });
  });
});
