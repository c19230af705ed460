import type { AnyModel } from '../lib/any-model';
import { LRUCache } from 'lru-cache';
import type { QueryParams } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import type { ClientsService } from '../clients/clients.service';
import { AuthorModel, type AuthorDoc } from './author.model';
import { toPage, toPost, toPostSummary, toPublicAuthor, toTaxonomy } from './content.views';
import { PageModel, type PageDoc } from './page.model';
import { loadPostRefs } from './post-refs';
import { PostModel, type PostDoc } from './post.model';
import { CategoryModel, TagModel, type TaxonomyDoc } from './taxonomy.model';
import type { PostViews } from './post-views';

export type PostFilters = Omit<QueryParams<'listPublicPosts'>, 'page' | 'page_size'>;

/** How long a content domain → client resolution is remembered in-process (both found and not found). */
export const DOMAIN_MEMO_MS = 5_000;
const DOMAIN_MEMO_MAX = 10_000;
const PUBLISHED = 'published';

/**
 * Reads for a client's public site: published posts and pages, active authors, tags and categories. Nothing here
 * crosses tenants. `clientByDomain` is the clients area's lookup of the client serving a content domain.
 */
export function createPublicContentService(deps: {
  clientByDomain: ClientsService['byContentDomain'];
  views: PostViews;
}) {
  // Full, the least recently used domain is forgotten first (not every domain at once).
  const memo = new LRUCache<string, { clientId: string | null }>({ max: DOMAIN_MEMO_MAX, ttl: DOMAIN_MEMO_MS });

  /**
   * The client a domain resolved to within the last DOMAIN_MEMO_MS; undefined when that is not known without a
   * lookup.
   */
  function rememberedClient(domain: string | undefined): string | null | undefined {
    return domain ? memo.get(domain.trim().toLowerCase())?.clientId : undefined;
  }

  /** The client that serves X-Content-Domain: 400 without the header, 404 for a domain no active client serves. */
  async function resolveClient(domain: string | undefined): Promise<string> {
    const key = domain?.trim().toLowerCase();
    if (!key)
      throw AppError.invalid('The X-Content-Domain header is required', [
        { location: 'header', field: 'X-Content-Domain', message: 'required' },
      ]);
    let entry = memo.get(key);
    if (!entry) {
      const client = await deps.clientByDomain(key);
      entry = { clientId: client?._id ?? null };
      memo.set(key, entry);
    }
    if (!entry.clientId) throw AppError.notFound('Unknown content domain');
    return entry.clientId;
  }

  async function idBySlug(model: AnyModel, clientId: string, slug: string): Promise<string | null> {
    const doc = await model.findOne({ client_id: clientId, slug }, { _id: 1 }).lean<{ _id: string }>();
    return doc?._id ?? null;
  }

  async function postFilter(clientId: string, f: PostFilters): Promise<object | null> {
    const filter: Record<string, unknown> = { client_id: clientId, status: PUBLISHED };
    const refs: [string | undefined, AnyModel, string][] = [
      [f.tag, TagModel, 'tag_ids'],
      [f.category, CategoryModel, 'category_ids'],
      [f.author, AuthorModel, 'author_id'],
    ];
    for (const [slug, model, field] of refs) {
      if (slug === undefined) continue;
      const id = await idBySlug(model, clientId, slug);
      if (!id) return null; // an unknown tag, category or author has no posts
      filter[field] = id;
    }
    if (f.featured !== undefined) filter.is_featured = f.featured;
    return filter;
  }

  return {
    resolveClient,
    rememberedClient,

    async listAuthors(clientId: string, page: Page) {
      const { docs, total } = await findPage<AuthorDoc>(
        AuthorModel,
        { filter: { client_id: clientId, is_active: true }, sort: { full_name: 1, _id: 1 } },
        page,
      );
      return pageEnvelope('authors', docs.map(toPublicAuthor), total, page);
    },

    async listPosts(clientId: string, filters: PostFilters, page: Page) {
      const filter = await postFilter(clientId, filters);
      if (!filter) return pageEnvelope('posts', [], 0, page);
      const { docs, total } = await findPage<PostDoc>(
        PostModel,
        { filter, sort: { published_at: -1, _id: 1 }, projection: { body: 0, body_html: 0 } },
        page,
      );
      const refs = await loadPostRefs(clientId, docs, { related: false, publishedOnly: true });
      return pageEnvelope(
        'posts',
        docs.map((d) => toPostSummary(d, refs)),
        total,
        page,
      );
    },

    async getPost(clientId: string, slug: string, opts: { html: boolean }) {
      const doc = await PostModel.findOne({ client_id: clientId, slug, status: PUBLISHED }).lean<PostDoc>();
      if (!doc) return null;
      return toPost(doc, await loadPostRefs(clientId, [doc], { related: true, publishedOnly: true }), opts);
    },

    /**
     * Counts one read of a published post, waiting for it to be stored (see post-views.ts); null when there is
     * no such post.
     */
    countView: (clientId: string, slug: string) => deps.views.count(clientId, slug),
    /** The live view counter a cached single-post read increments (see post-views.ts). */
    liveViewCounter: (clientId: string, slug: string) => deps.views.liveCounter(clientId, slug),
    /** A read counted on the live counter; stored in the background. */
    viewCounted: (clientId: string, slug: string) => deps.views.counted(clientId, slug),

    async listPages(clientId: string, page: Page) {
      const { docs, total } = await findPage<PageDoc>(
        PageModel,
        { filter: { client_id: clientId, status: PUBLISHED }, sort: { sort_order: 1, title: 1, _id: 1 } },
        page,
      );
      return pageEnvelope('pages', docs.map(toPage), total, page);
    },

    async getPage(clientId: string, slug: string) {
      const doc = await PageModel.findOne({ client_id: clientId, slug, status: PUBLISHED }).lean<PageDoc>();
      return doc ? toPage(doc) : null;
    },

    async listTaxonomy(kind: 'tags' | 'categories', clientId: string, page: Page) {
      const { docs, total } = await findPage<TaxonomyDoc>(
        kind === 'tags' ? TagModel : CategoryModel,
        { filter: { client_id: clientId }, sort: { name: 1, _id: 1 } },
        page,
      );
      return pageEnvelope(kind, docs.map(toTaxonomy), total, page);
    },
  };
}

export type PublicContentService = ReturnType<typeof createPublicContentService>;
