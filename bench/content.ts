/**
 * Public content reads under load, side by side with a bare Express route that answers the same
 * JSON from memory: requests per second, p50 and p99 latency, and the ratio, at 1 and 50 connections.
 * Target: each at least 0.8x.
 *
 *   npm run bench:content            (BENCH_SECONDS=10 BENCH_CONNECTIONS=50 by default)
 *
 * The API runs exactly as `npm start` runs it (engines from the devstack, or the configured URLs),
 * with LOG_LEVEL=warn so per-request access logs are not part of the measurement. autocannon runs
 * in a worker thread so that the load generator does not share the servers' event loop.
 */
import type { startApi } from '../src/runtime';
import { bareServer, machine, sideBySide, withBenchApi } from './support';

const DOMAIN = 'bench.example';

const paragraph = (i: number) => ({
  type: 'paragraph',
  content: [
    {
      type: 'text',
      text: `Paragraph ${i}: fresh sourdough every morning, rye on Thursdays, and seasonal pastries all week long. `,
    },
  ],
});

async function seed(s: Awaited<ReturnType<typeof startApi>>) {
  const client = await s.modules.clients.service.create({
    name: 'Bench Bakery',
    content_domains: [DOMAIN],
    admin_email: 'bench@bench.example',
  });
  const cid = client.client_id;
  const { authoring } = s.modules.content;
  for (let i = 0; i < 12; i++) {
    await authoring.createAuthor(cid, {
      full_name: `Author ${i}`,
      role: i % 3 === 0 ? 'editor' : 'author',
      bio: 'Writes about bread.',
    });
  }
  const category = await authoring.createTaxonomy('category', cid, { name: 'News' });
  for (let i = 0; i < 30; i++) {
    const post = await authoring.createPost(cid, {
      slug: `post-${i}`,
      title: `Post number ${i}`,
      body: { type: 'doc', content: Array.from({ length: 8 }, (_, j) => paragraph(j)) },
      author_name: `Author ${i % 12}`,
      tags: ['bread', `tag-${i % 5}`],
      category_ids: [category.id],
      is_featured: i % 7 === 0,
    });
    await authoring.publishPost(cid, post.id);
  }
}

async function main() {
  await withBenchApi('content', {}, async (api) => {
    await seed(api);
    const routes = [
      { name: 'GET /content/posts', path: '/api/v1/content/posts' },
      { name: 'GET /content/posts/{slug}', path: '/api/v1/content/posts/post-7' },
      { name: 'GET /content/authors', path: '/api/v1/content/authors' },
    ];
    // The bare baseline: the same JSON bodies, from memory, through a plain Express route each.
    const bodies: Record<string, unknown> = {};
    for (const route of routes) {
      const res = await fetch(api.url + route.path, { headers: { 'x-content-domain': DOMAIN } });
      if (res.status !== 200) throw new Error(`${route.name}: ${res.status} ${await res.text()}`);
      bodies[route.path] = await res.json();
    }
    const bare = await bareServer(bodies);
    try {
      const comparisons = routes.map((route) => ({
        name: route.name,
        url: api.url + route.path,
        headers: { 'x-content-domain': DOMAIN },
        bareUrl: bare.url + route.path,
      }));
      await sideBySide(comparisons, 0.8);
      process.stdout.write(`\ntarget: at least 0.8x of the bare route; ${machine(api)}\n`);
    } finally {
      bare.close();
    }
  });
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
