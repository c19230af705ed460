import { createRoute, createRouter, redirect } from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { rootRoute } from './routes/root';
import { appRoute } from './routes/app-route';
import { signInRoute } from './pages/auth/sign-in';
import { forgotPasswordRoute } from './pages/auth/forgot-password';
import { jobsRoutes } from './pages/jobs/routes';
import { leadsRoutes } from './pages/leads/routes';
import { watchesRoutes } from './pages/watches/routes';
import { contentRoutes } from './pages/content/routes';
import { credentialsRoutes } from './pages/credentials/routes';
import { agentsRoutes } from './pages/agents/routes';
import { brandsRoutes } from './pages/brands/routes';
import { usersRoutes } from './pages/users/routes';
import { activityRoutes } from './pages/activity/routes';
import { reportsRoutes } from './pages/reports/routes';
import { systemRoutes } from './pages/system/routes';
import { ErrorState, Loading } from './components/states';

const homeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/',
  beforeLoad: () => {
    throw redirect({ to: '/jobs' });
  },
});

/**
 * The console's pages, under /console. Each area adds its routes in its own pages/<area>/routes.tsx; filters, sort
 * and paging live in each route's search parameters (validated by zod), so a link reproduces a view and Back works.
 */
export const routeTree = rootRoute.addChildren([
  signInRoute,
  forgotPasswordRoute,
  appRoute.addChildren([
    homeRoute,
    ...jobsRoutes,
    ...leadsRoutes,
    ...watchesRoutes,
    ...contentRoutes,
    ...credentialsRoutes,
    ...agentsRoutes,
    ...brandsRoutes,
    ...usersRoutes,
    ...activityRoutes,
    ...reportsRoutes,
    ...systemRoutes,
  ]),
]);

export function createConsoleRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    basepath: '/console',
    context: { queryClient },
    defaultPreload: 'intent',
    defaultPendingComponent: () => <Loading />,
    defaultErrorComponent: ({ error, reset }) => <ErrorState error={error} retry={reset} />,
    scrollRestoration: true,
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createConsoleRouter>;
  }
}
