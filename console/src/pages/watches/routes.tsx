import { createRoute } from '@tanstack/react-router';
import { PageHeader } from '@/components/states';
import { appRoute } from '@/routes/app-route';

// The watches area's pages: built by its own change (issue 49, item of the workspace); the route is here so the
// navigation, the router and the tests have the whole tree from the start.
export const watchesRoutes = [
  createRoute({
    getParentRoute: () => appRoute,
    path: 'watches',
    component: () => <PageHeader title="Watches" />,
  }),
];
