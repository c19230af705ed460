import type { Model } from 'mongoose';
import { AppError } from '../lib/errors';
import type { Page } from '../lib/pagination';
import type { ClientsService } from '../clients/clients.service';
import { AuthorModel, type AuthorDoc } from './author.model';
import { toPage, toPost, toPostSummary, toPublicAuthor, toTaxonomy } from './content.views';
import { PageModel, type PageDoc } from './page.model';
import { loadPostRefs } from './post-refs';
import { PostModel, type PostDoc } from './post.model';
import { CategoryModel, TagModel, type TaxonomyDoc } from './taxonomy.model';
import type { PostViews } from './post-views';

export interface PostFilters {
  tag?: string;
  category?: string;
  author?: string;
  featured?: boolean;
}

/** How long a content domain → client resolution is remembered in-process (both found and not found). */
export const DOMAIN_MEMO_MS = 5_000;
const DOMAIN_MEMO_MAX = 10_000;
const PUBLISHED = 'published';

async function pageOfDocs<T>(
  model: Model<any>,
  filter: object,
  sort: Record<string, 1 | -1>,
  page: Page,
  projection?: object,
) {
  const [docs, total] = await Promise.all([
    model.find(filter, projection).sort(sort).skip(page.skip).limit(page.page_size).lean<T[]>(),
    model.countDocuments(filter),
  ]);
  return { docs, total, page: page.page, page_size: page.page_size };
}

/** Reads for a client's public site: published posts and pages, active authors, tags and categories. Nothing here crosses tenants. */
export function createPublicContentService(deps: { clients: ClientsService; views: PostViews }) {
  const memo = new Map<string, { clientId: string | null; until: number }>();

  /** The client a domain resolved to within the last DOMAIN_MEMO_MS; undefined when that is not known without a lookup. */
  function rememberedClient(domain: string | undefined): string | null | undefined {
    const entry = domain ? memo.get(domain.trim().toLowerCase()) : undefined;
    return entry && entry.until >= Date.now() ? entry.clientId : undefined;
  }

  /** The client that serves X-Content-Domain: 400 without the header, 404 for a domain no active client serves. */
  async function resolveClient(domain: string | undefined): Promise<string> {
    const key = domain?.trim().toLowerCase();
    if (!key)
      throw AppError.invalid('The X-Content-Domain header is required', [
        { location: 'header', field: 'X-Content-Domain', message: 'required' },
      ]);
    const now = Date.now();
    let entry = memo.get(key);
    if (!entry || entry.until < now) {
      const client = await deps.clients.byContentDomain(key);
      if (memo.size >= DOMAIN_MEMO_MAX) memo.clear();
      entry = { clientId: client?._id ?? null, until: now + DOMAIN_MEMO_MS };
      memo.set(key, entry);
    }
    if (!entry.clientId) throw AppError.notFound('Unknown content domain');
    return entry.clientId;
  }

  async function idBySlug(model: Model<any>, clientId: string, slug: string): Promise<string | null> {
    const doc = await model.findOne({ client_id: clientId, slug }, { _id: 1 }).lean<{ _id: string }>();
    return doc?._id ?? null;
  }

  async function postFilter(clientId: string, f: PostFilters): Promise<object | null> {
    const filter: Record<string, unknown> = { client_id: clientId, status: PUBLISHED };
    const refs: [string | undefined, Model<any>, string][] = [
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
      const r = await pageOfDocs<AuthorDoc>(
        AuthorModel,
        { client_id: clientId, is_active: true },
        { full_name: 1, _id: 1 },
        page,
      );
      return { authors: r.docs.map(toPublicAuthor), total: r.total, page: r.page, page_size: r.page_size };
    },

    async listPosts(clientId: string, filters: PostFilters, page: Page) {
      const filter = await postFilter(clientId, filters);
      if (!filter) return { posts: [], total: 0, page: page.page, page_size: page.page_size };
      const r = await pageOfDocs<PostDoc>(PostModel, filter, { published_at: -1, _id: 1 }, page, {
        body: 0,
        body_html: 0,
      });
      const refs = await loadPostRefs(clientId, r.docs, { related: false, publishedOnly: true });
      return { posts: r.docs.map((d) => toPostSummary(d, refs)), total: r.total, page: r.page, page_size: r.page_size };
    },

    async getPost(clientId: string, slug: string, opts: { html: boolean }) {
      const doc = await PostModel.findOne({ client_id: clientId, slug, status: PUBLISHED }).lean<PostDoc>();
      if (!doc) return null;
      return toPost(doc, await loadPostRefs(clientId, [doc], { related: true, publishedOnly: true }), opts);
    },

    /** Counts one read of a published post, waiting for it to be stored (see post-views.ts); null when there is no such post. */
    countView: (clientId: string, slug: string) => deps.views.count(clientId, slug),
    /** The live view counter a cached single-post read increments (see post-views.ts). */
    liveViewCounter: (clientId: string, slug: string) => deps.views.liveCounter(clientId, slug),
    /** A read counted on the live counter; stored in the background. */
    viewCounted: (clientId: string, slug: string) => deps.views.counted(clientId, slug),

    async listPages(clientId: string, page: Page) {
      const r = await pageOfDocs<PageDoc>(
        PageModel,
        { client_id: clientId, status: PUBLISHED },
        { sort_order: 1, title: 1, _id: 1 },
        page,
      );
      return { pages: r.docs.map(toPage), total: r.total, page: r.page, page_size: r.page_size };
    },

    async getPage(clientId: string, slug: string) {
      const doc = await PageModel.findOne({ client_id: clientId, slug, status: PUBLISHED }).lean<PageDoc>();
      return doc ? toPage(doc) : null;
    },

    async listTaxonomy(kind: 'tags' | 'categories', clientId: string, page: Page) {
      const r = await pageOfDocs<TaxonomyDoc>(
        kind === 'tags' ? TagModel : CategoryModel,
        { client_id: clientId },
        { name: 1, _id: 1 },
        page,
      );
      return { [kind]: r.docs.map(toTaxonomy), total: r.total, page: r.page, page_size: r.page_size };
    },
  };
}

export type PublicContentService = ReturnType<typeof createPublicContentService>;
