import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute } from '@/routes/app-route';

/** Credentials and webhooks: the agent tokens' page and whether inactive ones are listed live in the URL. */
export const credentialsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'credentials',
  validateSearch: z.object({
    tokens_page: z.coerce.number().int().min(1).optional().catch(undefined),
    inactive: z.boolean().optional().catch(undefined),
  }),
  component: lazyRouteComponent(() => import('./credentials-page'), 'CredentialsPage'),
});

export const credentialsRoutes = [credentialsRoute];
