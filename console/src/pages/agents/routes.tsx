import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute, onlyFor } from '@/routes/app-route';

export const REQUEST_STATES = ['pending', 'approved', 'denied', 'expired'] as const;

/**
 * Agents: access requests to decide and the agent tokens approved. The tab, the requests' state filter, each
 * list's page and whether revoked tokens are listed live in the URL (a link reproduces the view, Back works).
 */
export const agentsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'agents',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: true },
  validateSearch: z.object({
    tab: z.enum(['requests', 'tokens']).optional().catch(undefined),
    status: z.enum(REQUEST_STATES).optional().catch(undefined),
    page: z.coerce.number().int().min(1).optional().catch(undefined),
    tokens_page: z.coerce.number().int().min(1).optional().catch(undefined),
    inactive: z.boolean().optional().catch(undefined),
  }),
  component: lazyRouteComponent(() => import('./agents-page'), 'AgentsPage'),
});

export const agentsRoutes = [agentsRoute];
