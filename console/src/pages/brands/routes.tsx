import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute, onlyFor } from '@/routes/app-route';

export const brandsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'brands',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: true },
  component: lazyRouteComponent(() => import('./brands-page'), 'BrandsPage'),
});

export const brandsRoutes = [brandsRoute];
