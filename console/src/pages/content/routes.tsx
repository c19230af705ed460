import { createRoute, lazyRouteComponent, redirect } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute } from '@/routes/app-route';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const page = z.coerce.number().int().min(1).max(100000).optional().catch(undefined);
const slugFilter = z.string().regex(SLUG).max(200).optional().catch(undefined);
const status = z.enum(['draft', 'published']).optional().catch(undefined);

/** The post list's view in the URL: a link reproduces it and Back works. */
export const postsSearch = z.object({
  status,
  tag: slugFilter,
  category: slugFilter,
  author: slugFilter,
  q: z.string().min(1).max(200).optional().catch(undefined),
  page,
});
export type PostsSearch = z.infer<typeof postsSearch>;

const pagesSearch = z.object({ status, page });
const pagedSearch = z.object({ page });

/**
 * The content area: posts (a rich-text editor writing the body the public renderer reads), pages (typed blocks),
 * authors, tags and categories. Each section is a route of its own, so the section, its filters and its page are
 * in the URL.
 */
export const contentRoutes = [
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content',
    beforeLoad: () => {
      throw redirect({ to: '/content/posts', search: {} });
    },
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/posts',
    validateSearch: postsSearch,
    component: lazyRouteComponent(() => import('./posts-page'), 'PostsPage'),
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/posts/new',
    component: lazyRouteComponent(() => import('./post-editor'), 'NewPostPage'),
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/posts/$postId',
    component: lazyRouteComponent(() => import('./post-editor'), 'EditPostPage'),
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/pages',
    validateSearch: pagesSearch,
    component: lazyRouteComponent(() => import('./pages-page'), 'PagesPage'),
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/pages/new',
    component: lazyRouteComponent(() => import('./page-editor'), 'NewPagePage'),
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/pages/$pageId',
    component: lazyRouteComponent(() => import('./page-editor'), 'EditPagePage'),
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/authors',
    validateSearch: pagedSearch,
    component: lazyRouteComponent(() => import('./taxonomy-page'), 'AuthorsPage'),
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/tags',
    validateSearch: pagedSearch,
    component: lazyRouteComponent(() => import('./taxonomy-page'), 'TagsPage'),
  }),
  createRoute({
    getParentRoute: () => appRoute,
    path: 'content/categories',
    validateSearch: pagedSearch,
    component: lazyRouteComponent(() => import('./taxonomy-page'), 'CategoriesPage'),
  }),
];
