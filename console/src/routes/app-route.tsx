import { createRoute, redirect } from '@tanstack/react-router';
import { ApiError } from '@/api/errors';
import { meQuery, type Me, type Role } from '@/api/session';
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

const ROLE_NAMES: Record<Role, string> = {
  super_admin: 'super admins',
  brand_admin: 'brand admins',
  client_user: 'client users',
};

/**
 * A page for some roles only (an administration page): another role that reaches it by its address is told, in
 * words, who it is for, as the API would refuse it (403). Use as a route's `beforeLoad`.
 */
export const onlyFor =
  (...roles: Role[]) =>
  ({ context }: { context: { me?: Me } }) => {
    const role = context.me?.role;
    if (role && !roles.includes(role))
      throw new ApiError(
        403,
        `this page is for ${roles.map((r) => ROLE_NAMES[r]).join(' and ')}; you are signed in as a ${role.replace('_', ' ')}`,
      );
  };

declare module '@tanstack/react-router' {
  interface StaticDataRouteOption {
    /** The page works without a chosen client: a super_admin sees it before choosing one under "Acting for". */
    clientFree?: boolean;
  }
}
