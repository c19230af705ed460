import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute, onlyFor } from '@/routes/app-route';

export const activityRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'activity',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: false },
  component: lazyRouteComponent(() => import('./activity-page'), 'ActivityPage'),
});

export const activityRoutes = [activityRoute];
