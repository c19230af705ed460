import { pipeline } from 'node:stream/promises';
import type { JsonAnswer } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { notModified } from '../lib/http/conditional-get';
import {
  rawResponse,
  type AnyRequest,
  type OperationHandler,
  type OperationHandlers,
  type OperationRequest,
} from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf, requireTenant } from '../lib/tenancy';
import { assertSelectedClient } from '../clients/selected-client';
import type { AuthoringService } from './authoring.service';
import type { ContentMedia } from './content-media';
import type { PublicContentService } from './public.service';
import { readKey, withViewCount, type PublicReadOperation, type PublicResponder } from './public-http';

const domainOf = (req: AnyRequest) => req.get('x-content-domain');

/**
 * The client an authoring call writes to; a super_admin must name an existing one (422 otherwise, like a
 * missing one).
 */
async function tenantOf(req: AnyRequest): Promise<string> {
  const clientId = requireTenant(req);
  await assertSelectedClient(clientId, callerOf(req).role === 'super_admin');
  return clientId;
}

export interface ContentRouteDeps {
  authoring: AuthoringService;
  pub: PublicContentService;
  responder: PublicResponder;
  /** The content domains of a client (the clients area), for the console's preview. */
  contentDomainsOf: (clientId: string) => Promise<string[]>;
  /** Images uploaded for covers, and their public reads. */
  media: ContentMedia;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

export function contentRoutes(deps: ContentRouteDeps): OperationHandlers {
  const { authoring, pub, responder, contentDomainsOf, media } = deps;

  /**
   * A cached public read: resolve the site, serve from the cache or `load` (the operation's answer), 404 when
   * load finds nothing.
   */
  const publicRead =
    <Op extends Exclude<PublicReadOperation, 'getPublicPost'>>(
      op: string,
      load: (clientId: string, req: OperationRequest<Op>) => Promise<JsonAnswer<Op, 200> | null>,
    ): OperationHandler<Op> =>
    async (req, res) => {
      const clientId = await pub.resolveClient(domainOf(req));
      const entry = await responder.cached(clientId, readKey(req), () => load(clientId, req));
      if (!entry) throw AppError.notFound(`${op === 'page' ? 'Page' : 'Record'} not found`);
      responder.send(req, res, entry);
    };

  return {
    async getContentSite(req, res) {
      res.json({ content_domains: await contentDomainsOf(await tenantOf(req)) });
    },
    async listAuthors(req, res) {
      res.json(await authoring.listAuthors(await tenantOf(req), pageOf(req.query)));
    },
    async updateAuthor(req, res) {
      res.json(await authoring.updateAuthor(await tenantOf(req), req.params.author_id, req.body));
    },
    async deleteAuthor(req, res) {
      await authoring.deleteAuthor(await tenantOf(req), req.params.author_id);
      res.status(204).end();
    },
    async listTags(req, res) {
      res.json(await authoring.listTaxonomy('tag', await tenantOf(req), pageOf(req.query)));
    },
    async updateTag(req, res) {
      res.json(await authoring.updateTaxonomy('tag', await tenantOf(req), req.params.tag_id, req.body));
    },
    async deleteTag(req, res) {
      await authoring.deleteTaxonomy('tag', await tenantOf(req), req.params.tag_id);
      res.status(204).end();
    },
    async listCategories(req, res) {
      res.json(await authoring.listTaxonomy('category', await tenantOf(req), pageOf(req.query)));
    },
    async updateCategory(req, res) {
      res.json(await authoring.updateTaxonomy('category', await tenantOf(req), req.params.category_id, req.body));
    },
    async deleteCategory(req, res) {
      await authoring.deleteTaxonomy('category', await tenantOf(req), req.params.category_id);
      res.status(204).end();
    },
    async listPosts(req, res) {
      const { status, tag, category, author, q } = req.query;
      res.json(await authoring.listPosts(await tenantOf(req), { status, tag, category, author, q }, pageOf(req.query)));
    },
    async getPost(req, res) {
      res.json(await authoring.getPost(await tenantOf(req), req.params.post_id, { html: req.query.format === 'html' }));
    },
    async updatePost(req, res) {
      res.json(await authoring.updatePost(await tenantOf(req), req.params.post_id, req.body));
    },
    async deletePost(req, res) {
      await authoring.deletePost(await tenantOf(req), req.params.post_id);
      res.status(204).end();
    },
    async unpublishPost(req, res) {
      res.json(await authoring.unpublishPost(await tenantOf(req), req.params.post_id));
    },
    async listPages(req, res) {
      res.json(await authoring.listPages(await tenantOf(req), { status: req.query.status }, pageOf(req.query)));
    },
    async getPage(req, res) {
      res.json(await authoring.getPage(await tenantOf(req), req.params.page_id));
    },
    async deletePage(req, res) {
      await authoring.deletePage(await tenantOf(req), req.params.page_id);
      res.status(204).end();
    },
    async unpublishPage(req, res) {
      res.json(await authoring.unpublishPage(await tenantOf(req), req.params.page_id));
    },
    async createAuthor(req, res) {
      res.status(201).json(await authoring.createAuthor(await tenantOf(req), req.body));
    },
    async createTag(req, res) {
      res.status(201).json(await authoring.createTaxonomy('tag', await tenantOf(req), req.body));
    },
    async createCategory(req, res) {
      res.status(201).json(await authoring.createTaxonomy('category', await tenantOf(req), req.body));
    },
    async createPost(req, res) {
      res.status(201).json(await authoring.createPost(await tenantOf(req), req.body));
    },
    async publishPost(req, res) {
      res.json(await authoring.publishPost(await tenantOf(req), req.params.post_id));
    },
    async createPage(req, res) {
      res.status(201).json(await authoring.createPage(await tenantOf(req), req.body));
    },
    async updatePage(req, res) {
      res.json(await authoring.updatePage(await tenantOf(req), req.params.page_id, req.body));
    },
    async publishPage(req, res) {
      res.json(await authoring.publishPage(await tenantOf(req), req.params.page_id));
    },
    async uploadContentMedia(req, res) {
      res.status(201).json(await media.upload(await tenantOf(req), req.body.file));
    },
    async deleteContentMedia(req, res) {
      await media.remove(await tenantOf(req), req.params.media_id);
      res.status(204).end();
    },
    /** Public and tenant-free: the id is random and the file name the image's hash, so the URL never changes. */
    async getContentMediaImage(req, res) {
      const { media_id, file } = req.params;
      const found = await media.object(media_id, file);
      if (!found) throw AppError.notFound('Media not found');
      res.set({
        ETag: `"${file.replace(/\.webp$/, '')}"`,
        'Cache-Control': IMMUTABLE,
        'Last-Modified': found.head.lastModified.toUTCString(),
      });
      if (notModified(req, res)) return void res.status(304).end();
      const stream = await found.stream();
      if (!stream) throw AppError.notFound('Media not found');
      res.status(200).set({
        'Content-Type': 'image/webp',
        'Content-Length': String(found.head.size),
        'Content-Security-Policy': "default-src 'none'; sandbox",
      });
      await pipeline(stream, rawResponse(res)); // the image, as the contract declares it
    },

    listPublicAuthors: publicRead('authors', (cid, req) => pub.listAuthors(cid, pageOf(req.query))),
    listPublicPosts: publicRead('posts', (cid, req) => pub.listPosts(cid, req.query, pageOf(req.query))),
    listPublicPages: publicRead('pages', (cid, req) => pub.listPages(cid, pageOf(req.query))),
    getPublicPage: publicRead('page', (cid, req) => pub.getPage(cid, req.params.slug)),
    listPublicCategories: publicRead('categories', (cid, req) =>
      pub.listTaxonomy('categories', cid, pageOf(req.query)),
    ),
    listPublicTags: publicRead('tags', (cid, req) => pub.listTaxonomy('tags', cid, pageOf(req.query))),

    /** One post: every read is counted ($inc); the cached body gets the live view_count. */
    async getPublicPost(req, res) {
      const clientId = await pub.resolveClient(domainOf(req));
      const slug = req.params.slug;
      const views = await pub.countView(clientId, slug);
      const entry =
        views === null
          ? null
          : await responder.cached(clientId, readKey(req), async () => {
              const post = await pub.getPost(clientId, slug, { html: req.query.format === 'html' });
              if (!post) return null;
              const { view_count: _views, ...rest } = post;
              return rest satisfies Omit<JsonAnswer<'getPublicPost', 200>, 'view_count'>;
            });
      if (!entry) throw AppError.notFound('Post not found');
      responder.send(req, res, entry, withViewCount(entry.body, views!));
    },
  };
}
