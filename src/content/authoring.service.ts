import type { Model } from 'mongoose';
import type { JsonBody } from '../lib/contract-types';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import { iso, newId } from '../lib/ids';
import { AuthorModel, type AuthorDoc } from './author.model';
import type { ContentCache } from './content-cache';
import { toAuthor, toPage, toPost, toTaxonomy } from './content.views';
import type { DeployHooks } from './deploy-hook';
import { PageModel, type PageDoc } from './page.model';
import { loadPostRefs, missingIds } from './post-refs';
import { PostModel, type PostDoc } from './post.model';
import { deriveExcerpt, excerptSource, plainText, readingTime, validateRichText } from './rich-text';
import { renderHtml } from './render-html';
import { slugOrDerived } from './slug';
import { checkFreeForm } from '../lib/http/free-form';
import { CategoryModel, TagModel, type TaxonomyDoc } from './taxonomy.model';

export interface AuthorInput {
  full_name: string;
  slug?: string;
  avatar_url?: string | null;
  bio?: string | null;
  email?: string | null;
  role?: string;
  agent_type?: string;
  country?: string | null;
  city?: string | null;
}
export interface TaxonomyInput {
  name: string;
  slug?: string;
  description?: string | null;
}
export type PostInput = JsonBody<'createPost'>;
export interface PageInput {
  slug?: string;
  title?: string;
  description?: string;
  blocks?: { type: string; data: Record<string, unknown> }[];
  template?: string;
  sort_order?: number;
  seo_title?: string | null;
  seo_description?: string | null;
  og_image_url?: string | null;
}

const slugTaken = (what: string, slug: string) =>
  AppError.conflict(`${/^[aeiou]/.test(what) ? 'An' : 'A'} ${what} with slug ${slug} already exists`);

const CONTENT_MODELS: Model<any>[] = [AuthorModel, TagModel, CategoryModel, PostModel, PageModel];
const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export function createAuthoringService(deps: { cache: ContentCache; hooks: DeployHooks }) {
  // The unique {client_id, slug} indexes must exist before the first insert, or concurrent creates could both pass.
  let indexes: Promise<unknown> | null = null;
  const indexesReady = () =>
    (indexes ??= Promise.all(CONTENT_MODELS.map((m) => m.createIndexes())).catch((err) => {
      indexes = null;
      throw err;
    }));

  async function insert<T>(model: Model<any>, doc: Record<string, unknown>, what: string): Promise<T> {
    await indexesReady();
    try {
      const created = await model.create({ _id: newId(), ...doc });
      return created.toObject() as T;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw slugTaken(what, String(doc.slug));
      throw err;
    }
  }

  /** The id of the record whose name (or derived slug) is `value`, created when there is none. */
  async function findOrCreate(model: Model<any>, clientId: string, field: string, value: string): Promise<string> {
    const slug = slugOrDerived(undefined, value, field);
    const filter = { client_id: clientId, $or: [{ [field]: value }, { slug }] };
    const found = await model.findOne(filter, { _id: 1 }).lean<{ _id: string }>();
    if (found) return found._id;
    await indexesReady();
    try {
      return (await model.create({ _id: newId(), client_id: clientId, slug, [field]: value }))._id as string;
    } catch (err) {
      const again = isDuplicateKeyError(err) ? await model.findOne(filter, { _id: 1 }).lean<{ _id: string }>() : null;
      if (!again) throw err;
      return again._id;
    }
  }

  async function checkRefs(clientId: string, field: string, model: Model<any>, ids: string[] | undefined) {
    const missing = await missingIds(model, clientId, ids);
    if (missing.length)
      throw AppError.badRequest(`${field} names records this client does not have: ${missing.join(', ')}`);
  }

  async function resolveAuthor(clientId: string, input: PostInput): Promise<string | null> {
    if (input.author_id) {
      await checkRefs(clientId, 'author_id', AuthorModel, [input.author_id]);
      return input.author_id;
    }
    const name = input.author_name?.trim();
    return name ? findOrCreate(AuthorModel, clientId, 'full_name', name) : null;
  }

  async function resolveTags(clientId: string, input: PostInput): Promise<string[]> {
    await checkRefs(clientId, 'tag_ids', TagModel, input.tag_ids);
    const ids = [...(input.tag_ids ?? [])];
    for (const name of new Set((input.tags ?? []).map((t) => t.trim()).filter(Boolean))) {
      ids.push(await findOrCreate(TagModel, clientId, 'name', name));
    }
    return [...new Set(ids)];
  }

  async function expandPost(doc: PostDoc) {
    return toPost(doc, await loadPostRefs(doc.client_id, [doc], { related: true, publishedOnly: false }));
  }

  async function changed<T>(clientId: string, result: T): Promise<T> {
    await deps.cache.invalidate(clientId);
    return result;
  }

  /** draft → published; publishing an unchanged published record again changes nothing and calls no hook twice. */
  async function publish<T extends PostDoc | PageDoc>(
    model: Model<any>,
    type: 'post' | 'page',
    clientId: string,
    id: string,
  ): Promise<T> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let doc = await model.findOne({ _id: id, client_id: clientId }).lean<T>();
      if (!doc) throw AppError.notFound(`${type === 'post' ? 'Post' : 'Page'} not found`);
      if (doc.status !== 'published' || doc.published_revision !== doc.revision) {
        const $set = {
          status: 'published',
          published_at: doc.published_at ?? new Date(),
          published_revision: doc.revision,
        };
        doc = await model
          .findOneAndUpdate({ _id: id, client_id: clientId, revision: doc.revision }, { $set }, { new: true })
          .lean<T>();
        if (!doc) continue; // edited meanwhile: publish the newer revision
        await deps.cache.invalidate(clientId);
      }
      await deps.hooks.published({
        event: 'content.published',
        type,
        id,
        slug: doc.slug,
        client_id: clientId,
        revision: doc.revision,
        published_at: iso(doc.published_at),
      });
      return doc;
    }
    throw AppError.conflict(`The ${type} kept changing while being published; try again`);
  }

  return {
    async createAuthor(clientId: string, input: AuthorInput) {
      const slug = slugOrDerived(input.slug, input.full_name, 'full_name');
      const doc = await insert<AuthorDoc>(AuthorModel, { ...defined(input), client_id: clientId, slug }, 'author');
      return changed(clientId, toAuthor(doc));
    },

    async createTaxonomy(kind: 'tag' | 'category', clientId: string, input: TaxonomyInput) {
      const slug = slugOrDerived(input.slug, input.name, 'name');
      const doc = await insert<TaxonomyDoc>(
        kind === 'tag' ? TagModel : CategoryModel,
        { ...defined(input), client_id: clientId, slug },
        kind,
      );
      return changed(clientId, toTaxonomy(doc));
    },

    async createPost(clientId: string, input: PostInput) {
      const body = validateRichText(input.body);
      const slug = slugOrDerived(input.slug, input.title, 'title');
      // Fail on a taken slug before creating the authors and tags the post names (the unique index still
      // decides races).
      if (await PostModel.exists({ client_id: clientId, slug })) throw slugTaken('post', slug);
      await checkRefs(clientId, 'category_ids', CategoryModel, input.category_ids);
      await checkRefs(clientId, 'related_post_ids', PostModel, input.related_post_ids);
      const author_id = await resolveAuthor(clientId, input);
      const tag_ids = await resolveTags(clientId, input);
      const text = plainText(body);
      const { author_name: _n, tags: _t, ...fields } = defined(input);
      const doc = await insert<PostDoc>(
        PostModel,
        {
          ...fields,
          client_id: clientId,
          slug,
          body,
          author_id,
          tag_ids,
          category_ids: [...new Set(input.category_ids ?? [])],
          related_post_ids: [...new Set(input.related_post_ids ?? [])],
          body_html: renderHtml(body),
          reading_time: readingTime(text),
          excerpt: input.excerpt ?? deriveExcerpt(excerptSource(body)),
          status: 'draft',
          published_at: null,
        },
        'post',
      );
      return changed(clientId, await expandPost(doc));
    },

    async publishPost(clientId: string, postId: string) {
      return expandPost(await publish<PostDoc>(PostModel, 'post', clientId, postId));
    },

    async createPage(clientId: string, input: PageInput & { title: string }) {
      checkFreeForm(input.blocks, 'blocks', { status: 400 });
      const slug = slugOrDerived(input.slug, input.title, 'title');
      const doc = await insert<PageDoc>(
        PageModel,
        { ...defined(input), client_id: clientId, slug, status: 'draft', published_at: null },
        'page',
      );
      return changed(clientId, toPage(doc));
    },

    /** Changes only the supplied fields; `blocks` replaces the whole list. */
    async updatePage(clientId: string, pageId: string, patch: PageInput) {
      checkFreeForm(patch.blocks, 'blocks', { status: 400 });
      const $set = defined(patch);
      const filter = { _id: pageId, client_id: clientId };
      let doc: PageDoc | null;
      await indexesReady();
      try {
        doc = Object.keys($set).length
          ? await PageModel.findOneAndUpdate(filter, { $set, $inc: { revision: 1 } }, { new: true }).lean<PageDoc>()
          : await PageModel.findOne(filter).lean<PageDoc>();
      } catch (err) {
        if (isDuplicateKeyError(err)) throw slugTaken('page', String($set.slug));
        throw err;
      }
      if (!doc) throw AppError.notFound('Page not found');
      return Object.keys($set).length ? changed(clientId, toPage(doc)) : toPage(doc);
    },

    async publishPage(clientId: string, pageId: string) {
      return toPage(await publish<PageDoc>(PageModel, 'page', clientId, pageId));
    },
  };
}

export type AuthoringService = ReturnType<typeof createAuthoringService>;
