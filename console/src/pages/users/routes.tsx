import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute, onlyFor } from '@/routes/app-route';

/**
 * Dashboard users (super_admin only, across clients): the role filter, the e-mail search, the page and the user
 * open in the side panel all live in the URL (a link reproduces the view; Back works).
 */
export const usersRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'users',
  beforeLoad: onlyFor('super_admin'),
  staticData: { clientFree: true },
  validateSearch: z.object({
    role: z.enum(['super_admin', 'brand_admin', 'client_user']).optional().catch(undefined),
    search: z.string().trim().min(1).max(200).optional().catch(undefined),
    page: z.coerce.number().int().min(1).optional().catch(undefined),
    user: z.uuid().optional().catch(undefined),
  }),
  component: lazyRouteComponent(() => import('./users-page'), 'UsersPage'),
});

export const usersRoutes = [usersRoute];
