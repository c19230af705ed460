import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute, onlyFor } from '@/routes/app-route';

export const reportsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'reports',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: true },
  component: lazyRouteComponent(() => import('./reports-page'), 'ReportsPage'),
});

export const reportsRoutes = [reportsRoute];
