import { createRoute } from '@tanstack/react-router';
import { PageHeader } from '@/components/states';
import { appRoute } from '@/routes/app-route';

// The leads area's pages: built by its own change (issue 49, item of the workspace); the route is here so the
// navigation, the router and the tests have the whole tree from the start.
export const leadsRoutes = [
  createRoute({
    getParentRoute: () => appRoute,
    path: 'leads',
    component: () => <PageHeader title="Leads" />,
  }),
];
