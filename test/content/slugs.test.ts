import { startTestApi, type TestApi } from '../support/harness';
import { author, createSite, doc, type Site } from './content-helpers';

describe('slug uniqueness under concurrency', () => {
  let api: TestApi;
  let site: Site;
  let other: Site;

  beforeAll(async () => {
    api = await startTestApi();
    const admin = await api.login();
    site = await createSite(api, admin, 'Race', 'race.example');
    other = await createSite(api, admin, 'Race Two', 'race-two.example');
  });
  afterAll(() => api.stop());

  const bodies: Record<string, (i: number) => Record<string, unknown>> = {
    authors: (i) => ({ full_name: `Same Name ${i}`, slug: 'same-slug' }),
    tags: (i) => ({ name: `Tag ${i}`, slug: 'same-slug' }),
    categories: (i) => ({ name: `Category ${i}`, slug: 'same-slug' }),
    posts: (i) => ({ title: `Post ${i}`, slug: 'same-slug', body: doc('x') }),
    pages: (i) => ({ title: `Page ${i}`, slug: 'same-slug' }),
  };

  it.each(Object.keys(bodies))(
    'gives exactly one 201 and otherwise 409 for 10 parallel creates of one %s slug',
    async (kind) => {
      const as = author(api, site.triple);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => as.post(kind, bodies[kind](i))));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, ...Array(9).fill(409)]);
      // Another client may use the same slug.
      expect((await author(api, other.triple).post(kind, bodies[kind](0))).status).toBe(201);
    },
  );

  it('gives one 201 for parallel creates of one generated slug', async () => {
    const as = author(api, site.triple);
    const results = await Promise.all(Array.from({ length: 10 }, () => as.post('tags', { name: 'Breaking News!' })));
    expect(results.filter((r) => r.status === 201).map((r) => r.body.slug)).toEqual(['breaking-news']);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
  });

  it('creates a named tag or author once when parallel posts name it', async () => {
    const as = author(api, site.triple);
    const posts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        as.create('posts', {
          slug: `shared-${i}`,
          title: `Shared ${i}`,
          body: doc('x'),
          author_name: 'Shared Author',
          tags: ['Shared Tag'],
        }),
      ),
    );
    expect(new Set(posts.map((p) => p.author.id)).size).toBe(1);
    expect(posts.every((p) => p.tags.length === 1 && p.tags[0] === 'Shared Tag')).toBe(true);
  });
});
