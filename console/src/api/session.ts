import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from './client';
import type { components } from '@contract';

export type Me = components['schemas']['Me'];
export type Role = Me['role'];

/** Who is signed in (GET /dashboard/me with the session cookie); a 401 means nobody. */
export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: () => unwrap(api.GET('/api/v1/dashboard/me')),
  staleTime: 60_000,
  retry: false,
});

/** Login sets the httpOnly session cookie; the access token in the answer is left unread, never kept. */
export async function signIn(email: string, password: string): Promise<void> {
  await unwrap(api.POST('/api/v1/auth/login', { body: { email, password } }));
}

export async function signOut(): Promise<void> {
  await unwrap(api.POST('/api/v1/auth/logout'));
}

export async function requestPasswordReset(email: string): Promise<void> {
  await unwrap(api.POST('/api/v1/auth/password-reset/request', { body: { email } }));
}

/** What each role sees in the navigation; the API refuses the rest anyway. */
export const canAdminister = (role: Role) => role === 'super_admin' || role === 'brand_admin';
