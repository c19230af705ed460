import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute } from '@/routes/app-route';

/** The watches list: its state filter and page in the URL (a link reproduces the view; Back works). */
export const watchesRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'watches',
  validateSearch: z.object({
    state: z.enum(['active', 'paused']).optional().catch(undefined),
    page: z.coerce.number().int().min(1).optional().catch(undefined),
  }),
  component: lazyRouteComponent(() => import('./watches-page'), 'WatchesPage'),
});

/** A new watch: the job each run submits, its cadence, and its next runs previewed before saving. */
export const newWatchRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'watches/new',
  component: lazyRouteComponent(() => import('./new-watch-page'), 'NewWatchPage'),
});

/** One watch: its settings, its next runs and its runs (paged in the URL), live. */
export const watchRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'watches/$watchId',
  validateSearch: z.object({
    runs_page: z.coerce.number().int().min(1).optional().catch(undefined),
  }),
  component: lazyRouteComponent(() => import('./watch-page'), 'WatchPage'),
});

export const watchesRoutes = [watchesRoute, newWatchRoute, watchRoute];
