import { orNull } from '../lib/api-views';
import type { Schemas } from '../lib/contract-types';
import { iso } from '../lib/ids';
import type { AUTHOR_ROLES, AuthorDoc } from './author.model';
import type { PageDoc } from './page.model';
import type { PostDoc } from './post.model';
import type { TaxonomyDoc } from './taxonomy.model';

/** How records look in API responses: the dashboard (authoring) view and the public view. */

export function toAuthor(doc: AuthorDoc) {
  return {
    id: doc._id,
    full_name: doc.full_name,
    slug: doc.slug,
    ...orNull(doc, 'avatar_url', 'bio', 'email'),
    role: doc.role,
    agent_type: doc.agent_type,
    ...orNull(doc, 'country', 'city'),
    is_active: doc.is_active,
    created_at: iso(doc.created_at),
    updated_at: iso(doc.updated_at),
  };
}

/** Public role names: the stored administrator is shown as admin, author as contributor. */
const PUBLIC_ROLES: Record<(typeof AUTHOR_ROLES)[number], Schemas['PublicAuthor']['role']> = {
  administrator: 'admin',
  editor: 'editor',
  contributor: 'contributor',
  author: 'contributor',
};

/** The public author: role shown as admin, editor or contributor; agent_type null for humans, "ai" for AI authors. */
export function toPublicAuthor(doc: AuthorDoc): Schemas['PublicAuthor'] {
  const { is_active: _active, created_at: _c, updated_at: _u, ...rest } = toAuthor(doc);
  return {
    ...rest,
    role: PUBLIC_ROLES[doc.role] ?? 'contributor',
    agent_type: doc.agent_type === 'human' ? null : doc.agent_type,
  };
}

export const toTaxonomy = (doc: TaxonomyDoc) => ({
  id: doc._id,
  name: doc.name,
  slug: doc.slug,
  description: doc.description ?? null,
});

const authorRef = (doc: AuthorDoc) => ({
  id: doc._id,
  full_name: doc.full_name,
  slug: doc.slug,
  ...orNull(doc, 'avatar_url', 'bio'),
});

/** The records a post refers to, loaded in batches for a whole list (see loadPostRefs). */
export interface PostRefs {
  authors: Map<string, AuthorDoc>;
  tags: Map<string, TaxonomyDoc>;
  categories: Map<string, TaxonomyDoc>;
  related: Map<string, PostDoc>;
}

const pick = <T>(ids: string[], map: Map<string, T>): T[] => ids.flatMap((id) => (map.has(id) ? [map.get(id)!] : []));

export const toRelatedPost = (doc: PostDoc) => ({
  id: doc._id,
  slug: doc.slug,
  title: doc.title,
  ...orNull(doc, 'excerpt', 'cover_image_url'),
  status: doc.status,
  published_at: iso(doc.published_at),
});

/** A post without its body (lists): everything a post card needs. */
export function toPostSummary(doc: PostDoc, refs: PostRefs) {
  const author = doc.author_id ? refs.authors.get(doc.author_id) : undefined;
  return {
    id: doc._id,
    slug: doc.slug,
    title: doc.title,
    ...orNull(doc, 'excerpt', 'tldr_summary', 'cover_image_url', 'featured_image_alt'),
    status: doc.status,
    published_at: iso(doc.published_at),
    author: author ? authorRef(author) : null,
    tags: pick(doc.tag_ids, refs.tags).map((t) => t.name),
    categories: pick(doc.category_ids, refs.categories).map((c) => ({ id: c._id, name: c.name, slug: c.slug })),
    reading_time: doc.reading_time,
    view_count: doc.view_count,
    is_featured: doc.is_featured,
    ...orNull(doc, 'seo_title', 'seo_description', 'og_image_url'),
    created_at: iso(doc.created_at),
    updated_at: iso(doc.updated_at),
  };
}

/** The full post: the summary plus body and related posts (and body_html when asked for). */
export function toPost(doc: PostDoc, refs: PostRefs, opts: { html?: boolean } = {}) {
  return {
    ...toPostSummary(doc, refs),
    body: doc.body,
    ...(opts.html ? { body_html: doc.body_html } : {}),
    related_posts: pick(doc.related_post_ids, refs.related).map(toRelatedPost),
  };
}

export function toPage(doc: PageDoc) {
  return {
    id: doc._id,
    slug: doc.slug,
    title: doc.title,
    description: doc.description,
    blocks: doc.blocks,
    template: doc.template,
    status: doc.status,
    published_at: iso(doc.published_at),
    sort_order: doc.sort_order,
    ...orNull(doc, 'seo_title', 'seo_description', 'og_image_url'),
    created_at: iso(doc.created_at),
    updated_at: iso(doc.updated_at),
  };
}
