import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute, onlyFor } from '@/routes/app-route';

export const agentsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'agents',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: true },
  component: lazyRouteComponent(() => import('./agents-page'), 'AgentsPage'),
});

export const agentsRoutes = [agentsRoute];
