import type { AnyModel } from '../lib/any-model';
import type { JsonBody, QueryParams } from '../lib/contract-types';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import { iso, newId } from '../lib/ids';
import { AuthorModel, type AuthorDoc } from './author.model';
import type { ContentCache } from './content-cache';
import { toAuthor, toPage, toPost, toPostSummary, toTaxonomy } from './content.views';
import type { DeployHooks } from './deploy-hook';
import { PageModel, type PageDoc } from './page.model';
import { loadPostRefs, missingIds } from './post-refs';
import { PostModel, type PostDoc } from './post.model';
import { deriveExcerpt, excerptSource, plainText, readingTime, validateRichText } from './rich-text';
import { renderHtml } from './render-html';
import { slugOrDerived } from './slug';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import { checkFreeForm } from '../lib/http/free-form';
import { CategoryModel, TagModel, type TaxonomyDoc } from './taxonomy.model';

export type AuthorInput = JsonBody<'createAuthor'>;
export type AuthorPatch = JsonBody<'updateAuthor'>;
/** A tag or a category (the contract gives both the same fields). */
export type TaxonomyInput = JsonBody<'createTag' | 'createCategory'>;
export type TaxonomyPatch = JsonBody<'updateTag' | 'updateCategory'>;
export type PostInput = JsonBody<'createPost'>;
export type PostPatch = JsonBody<'updatePost'>;
export type PostListFilters = Omit<QueryParams<'listPosts'>, 'page' | 'page_size'>;
export type PageInput = JsonBody<'createPage'>;
export type PagePatch = JsonBody<'updatePage'>;

/** A text matched literally inside a regular expression. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const slugTaken = (what: string, slug: string) =>
  AppError.conflict(`${/^[aeiou]/.test(what) ? 'An' : 'A'} ${what} with slug ${slug} already exists`);

const CONTENT_MODELS: AnyModel[] = [AuthorModel, TagModel, CategoryModel, PostModel, PageModel];
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

  async function insert<T>(model: AnyModel, doc: Record<string, unknown>, what: string): Promise<T> {
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
  async function findOrCreate(model: AnyModel, clientId: string, field: string, value: string): Promise<string> {
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

  async function checkRefs(clientId: string, field: string, model: AnyModel, ids: string[] | undefined) {
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
    model: AnyModel,
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
          .findOneAndUpdate(
            { _id: id, client_id: clientId, revision: doc.revision },
            { $set },
            { returnDocument: 'after' },
          )
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

  /** Changes the supplied fields of one record of the client (a taken slug is 409); null when there is none. */
  async function patchRecord<T>(model: AnyModel, what: string, clientId: string, id: string, update: object) {
    await indexesReady();
    try {
      return await model
        .findOneAndUpdate({ _id: id, client_id: clientId }, update, { returnDocument: 'after' })
        .lean<T>();
    } catch (err) {
      if (isDuplicateKeyError(err)) {
        const slug = (update as { $set?: { slug?: string } }).$set?.slug;
        throw slugTaken(what, String(slug));
      }
      throw err;
    }
  }

  const TAXONOMY = {
    tag: { model: TagModel, field: 'tag_ids' },
    category: { model: CategoryModel, field: 'category_ids' },
  };

  /** published → draft: the record leaves the public reads (the cache is invalidated); a draft is left as it is. */
  async function unpublish<T extends PostDoc | PageDoc>(model: AnyModel, what: string, clientId: string, id: string) {
    const doc = await model
      .findOneAndUpdate(
        { _id: id, client_id: clientId },
        { $set: { status: 'draft', published_at: null, published_revision: null } },
        { returnDocument: 'after' },
      )
      .lean<T>();
    if (!doc) throw AppError.notFound(`${what} not found`);
    await deps.cache.invalidate(clientId);
    return doc;
  }

  return {
    async listAuthors(clientId: string, page: Page) {
      const { docs, total } = await findPage<AuthorDoc>(
        AuthorModel,
        { filter: { client_id: clientId }, sort: { full_name: 1, _id: 1 } },
        page,
      );
      return pageEnvelope('authors', docs.map(toAuthor), total, page);
    },

    async updateAuthor(clientId: string, authorId: string, patch: AuthorPatch) {
      const doc = await patchRecord<AuthorDoc>(AuthorModel, 'author', clientId, authorId, { $set: patch });
      if (!doc) throw AppError.notFound('Author not found');
      return changed(clientId, toAuthor(doc));
    },

    /** The author goes; their posts stay, without an author. */
    async deleteAuthor(clientId: string, authorId: string) {
      const gone = await AuthorModel.findOneAndDelete({ _id: authorId, client_id: clientId }).lean();
      if (!gone) throw AppError.notFound('Author not found');
      await PostModel.updateMany({ client_id: clientId, author_id: authorId }, { $set: { author_id: null } });
      await changed(clientId, null);
    },

    async listTaxonomy(kind: 'tag' | 'category', clientId: string, page: Page) {
      const { docs, total } = await findPage<TaxonomyDoc>(
        TAXONOMY[kind].model,
        { filter: { client_id: clientId }, sort: { name: 1, _id: 1 } },
        page,
      );
      return pageEnvelope(kind === 'tag' ? 'tags' : 'categories', docs.map(toTaxonomy), total, page);
    },

    async updateTaxonomy(kind: 'tag' | 'category', clientId: string, id: string, patch: TaxonomyPatch) {
      const doc = await patchRecord<TaxonomyDoc>(TAXONOMY[kind].model, kind, clientId, id, { $set: patch });
      if (!doc) throw AppError.notFound(`${kind === 'tag' ? 'Tag' : 'Category'} not found`);
      return changed(clientId, toTaxonomy(doc));
    },

    /** The tag or category goes, and out of every post that had it. */
    async deleteTaxonomy(kind: 'tag' | 'category', clientId: string, id: string) {
      const { model, field } = TAXONOMY[kind];
      const gone = await model.findOneAndDelete({ _id: id, client_id: clientId }).lean();
      if (!gone) throw AppError.notFound(`${kind === 'tag' ? 'Tag' : 'Category'} not found`);
      await PostModel.updateMany({ client_id: clientId, [field]: id }, { $pull: { [field]: id } });
      await changed(clientId, null);
    },

    /** Drafts and published posts, the most recently updated first. */
    async listPosts(clientId: string, filters: PostListFilters, page: Page) {
      const filter: Record<string, unknown> = { client_id: clientId };
      if (filters.status) filter.status = filters.status;
      const refs: [string | undefined, AnyModel, string][] = [
        [filters.tag, TagModel, 'tag_ids'],
        [filters.category, CategoryModel, 'category_ids'],
        [filters.author, AuthorModel, 'author_id'],
      ];
      for (const [slug, model, field] of refs) {
        if (slug === undefined) continue;
        const found = await model.findOne({ client_id: clientId, slug }, { _id: 1 }).lean<{ _id: string }>();
        if (!found) return pageEnvelope('posts', [], 0, page);
        filter[field] = found._id;
      }
      if (filters.q) filter.title = { $regex: literal(filters.q), $options: 'i' };
      const { docs, total } = await findPage<PostDoc>(
        PostModel,
        { filter, sort: { updated_at: -1, _id: 1 }, projection: { body: 0, body_html: 0 } },
        page,
      );
      const postRefs = await loadPostRefs(clientId, docs, { related: false, publishedOnly: false });
      return pageEnvelope(
        'posts',
        docs.map((d) => toPostSummary(d, postRefs)),
        total,
        page,
      );
    },

    /** One post, draft or published; with `html` its body as the public renderer wrote it at the last save. */
    async getPost(clientId: string, postId: string, opts: { html: boolean }) {
      const doc = await PostModel.findOne({ _id: postId, client_id: clientId }).lean<PostDoc>();
      if (!doc) throw AppError.notFound('Post not found');
      return toPost(doc, await loadPostRefs(clientId, [doc], { related: true, publishedOnly: false }), opts);
    },

    /** Changes the supplied fields; a new body renders again (HTML, reading time, the excerpt unless given). */
    async updatePost(clientId: string, postId: string, patch: PostPatch) {
      const { tags, tag_ids, body: rawBody, excerpt, author_id, ...fields } = patch;
      const $set: Record<string, unknown> = { ...defined(fields) };
      if (fields.category_ids) {
        await checkRefs(clientId, 'category_ids', CategoryModel, fields.category_ids);
        $set.category_ids = [...new Set(fields.category_ids)];
      }
      if (fields.related_post_ids) {
        await checkRefs(clientId, 'related_post_ids', PostModel, fields.related_post_ids);
        $set.related_post_ids = [...new Set(fields.related_post_ids)];
      }
      if (author_id !== undefined) {
        if (author_id) await checkRefs(clientId, 'author_id', AuthorModel, [author_id]);
        $set.author_id = author_id;
      }
      if (tags !== undefined || tag_ids !== undefined)
        $set.tag_ids = await resolveTags(clientId, { tags, tag_ids } as PostInput);
      if (rawBody !== undefined) {
        const body = validateRichText(rawBody);
        Object.assign($set, { body, body_html: renderHtml(body), reading_time: readingTime(plainText(body)) });
      }
      if (typeof excerpt === 'string') $set.excerpt = excerpt;
      if (excerpt === null) {
        // null: the excerpt is derived again, from the new body or the stored one.
        const body =
          ($set.body as PostDoc['body'] | undefined) ??
          (await PostModel.findOne({ _id: postId, client_id: clientId }, { body: 1 }).lean<PostDoc>())?.body;
        $set.excerpt = body ? deriveExcerpt(excerptSource(body)) : null;
      }
      const doc = await patchRecord<PostDoc>(PostModel, 'post', clientId, postId, { $set, $inc: { revision: 1 } });
      if (!doc) throw AppError.notFound('Post not found');
      return changed(clientId, await expandPost(doc));
    },

    /** The post goes, and out of the related posts of the client's other posts. */
    async deletePost(clientId: string, postId: string) {
      const gone = await PostModel.findOneAndDelete({ _id: postId, client_id: clientId }).lean();
      if (!gone) throw AppError.notFound('Post not found');
      await PostModel.updateMany(
        { client_id: clientId, related_post_ids: postId },
        { $pull: { related_post_ids: postId } },
      );
      await changed(clientId, null);
    },

    async unpublishPost(clientId: string, postId: string) {
      return expandPost(await unpublish<PostDoc>(PostModel, 'Post', clientId, postId));
    },

    async listPages(clientId: string, filters: Pick<QueryParams<'listPages'>, 'status'>, page: Page) {
      const filter: Record<string, unknown> = { client_id: clientId, ...defined(filters) };
      const { docs, total } = await findPage<PageDoc>(
        PageModel,
        { filter, sort: { sort_order: 1, title: 1, _id: 1 } },
        page,
      );
      return pageEnvelope('pages', docs.map(toPage), total, page);
    },

    async getPage(clientId: string, pageId: string) {
      const doc = await PageModel.findOne({ _id: pageId, client_id: clientId }).lean<PageDoc>();
      if (!doc) throw AppError.notFound('Page not found');
      return toPage(doc);
    },

    async deletePage(clientId: string, pageId: string) {
      const gone = await PageModel.findOneAndDelete({ _id: pageId, client_id: clientId }).lean();
      if (!gone) throw AppError.notFound('Page not found');
      await changed(clientId, null);
    },

    async unpublishPage(clientId: string, pageId: string) {
      return toPage(await unpublish<PageDoc>(PageModel, 'Page', clientId, pageId));
    },

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

    async createPage(clientId: string, input: PageInput) {
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
    async updatePage(clientId: string, pageId: string, patch: PagePatch) {
      checkFreeForm(patch.blocks, 'blocks', { status: 400 });
      const $set = defined(patch);
      const filter = { _id: pageId, client_id: clientId };
      let doc: PageDoc | null;
      await indexesReady();
      try {
        doc = Object.keys($set).length
          ? await PageModel.findOneAndUpdate(
              filter,
              { $set, $inc: { revision: 1 } },
              { returnDocument: 'after' },
            ).lean<PageDoc>()
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
