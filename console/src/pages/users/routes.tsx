import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { appRoute, onlyFor } from '@/routes/app-route';

export const usersRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'users',
  beforeLoad: onlyFor('super_admin'),
  staticData: { clientFree: true },
  component: lazyRouteComponent(() => import('./users-page'), 'UsersPage'),
});

export const usersRoutes = [usersRoute];
