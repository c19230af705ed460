import type { Request, Response } from 'express';
import { AppError } from '../lib/errors';
import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf, requireTenant } from '../lib/tenancy';
import { assertSelectedClient } from '../clients/selected-client';
import type { AuthoringService } from './authoring.service';
import type { PostFilters, PublicContentService } from './public.service';
import { readKey, withViewCount, type PublicResponder } from './public-http';

const domainOf = (req: Request) => req.get('x-content-domain');

/**
 * The client an authoring call writes to; a super_admin must name an existing one (422 otherwise, like a
 * missing one).
 */
async function tenantOf(req: Request): Promise<string> {
  const clientId = requireTenant(req);
  await assertSelectedClient(clientId, callerOf(req).role === 'super_admin');
  return clientId;
}

export interface ContentRouteDeps {
  authoring: AuthoringService;
  pub: PublicContentService;
  responder: PublicResponder;
}

export function contentRoutes(deps: ContentRouteDeps): OperationHandlers {
  const { authoring, pub, responder } = deps;

  /** A cached public read: resolve the site, serve from the cache or `load`, 404 when load finds nothing. */
  const publicRead =
    (op: string, load: (clientId: string, req: Request) => Promise<unknown | null>) =>
    async (req: Request, res: Response) => {
      const clientId = await pub.resolveClient(domainOf(req));
      const entry = await responder.cached(clientId, readKey(req), () => load(clientId, req));
      if (!entry) throw AppError.notFound(`${op === 'page' ? 'Page' : 'Record'} not found`);
      responder.send(req, res, entry);
    };

  return {
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
      res.json(await authoring.publishPost(await tenantOf(req), pathParam(req, 'post_id')));
    },
    async createPage(req, res) {
      res.status(201).json(await authoring.createPage(await tenantOf(req), req.body));
    },
    async updatePage(req, res) {
      res.json(await authoring.updatePage(await tenantOf(req), pathParam(req, 'page_id'), req.body));
    },
    async publishPage(req, res) {
      res.json(await authoring.publishPage(await tenantOf(req), pathParam(req, 'page_id')));
    },

    listPublicAuthors: publicRead('authors', (cid, req) => pub.listAuthors(cid, pageOf(req))),
    listPublicPosts: publicRead('posts', (cid, req) => pub.listPosts(cid, req.query as PostFilters, pageOf(req))),
    listPublicPages: publicRead('pages', (cid, req) => pub.listPages(cid, pageOf(req))),
    getPublicPage: publicRead('page', (cid, req) => pub.getPage(cid, pathParam(req, 'slug'))),
    listPublicCategories: publicRead('categories', (cid, req) => pub.listTaxonomy('categories', cid, pageOf(req))),
    listPublicTags: publicRead('tags', (cid, req) => pub.listTaxonomy('tags', cid, pageOf(req))),

    /** One post: every read is counted ($inc); the cached body gets the live view_count. */
    async getPublicPost(req, res) {
      const clientId = await pub.resolveClient(domainOf(req));
      const slug = pathParam(req, 'slug');
      const views = await pub.countView(clientId, slug);
      const entry =
        views === null
          ? null
          : await responder.cached(clientId, readKey(req), async () => {
              const post = await pub.getPost(clientId, slug, { html: req.query.format === 'html' });
              if (!post) return null;
              const { view_count: _views, ...rest } = post;
              return rest;
            });
      if (!entry) throw AppError.notFound('Post not found');
      responder.send(req, res, entry, withViewCount(entry.body, views!));
    },
  };
}
