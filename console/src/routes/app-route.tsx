import { createRoute, redirect } from '@tanstack/react-router';
import { ApiError } from '@/api/errors';
import { meQuery } from '@/api/session';
import { AppShell } from '@/components/app-shell';
import { rootRoute } from './root';

/** Where a sign-in may send the user back to: a path of the console, never another site. */
export const safeNext = (next: unknown): string | undefined =>
  typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') && !next.includes('\\\\')
    ? next
    : undefined;

/**
 * Every signed-in page sits under this route: it asks who is signed in (the session cookie), and without a session
 * sends the user to sign in, to come back here afterwards.
 */
export const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: async ({ context, location }) => {
    try {
      return { me: await context.queryClient.ensureQueryData(meQuery) };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401)
        throw redirect({ to: '/sign-in', search: { next: location.href } });
      throw error;
    }
  },
  component: AppShell,
});
