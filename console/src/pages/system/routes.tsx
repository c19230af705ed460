import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute, onlyFor } from '@/routes/app-route';

export const systemRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'system',
  beforeLoad: onlyFor('super_admin'),
  staticData: { clientFree: true },
  component: lazyRouteComponent(() => import('./system-page'), 'SystemPage'),
});

export const systemRoutes = [systemRoute];
