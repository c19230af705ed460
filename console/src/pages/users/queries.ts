import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '@/api/client';
import type { components } from '@contract';

export type DashboardUser = components['schemas']['DashboardUser'];
export type Role = DashboardUser['role'];
export const PAGE_SIZE = 20;

export const ROLE_LABELS: Record<Role, string> = {
  super_admin: 'Super admin',
  brand_admin: 'Brand admin',
  client_user: 'Client user',
};

/** One page of users (listDashboardUsers) for the filters of the URL. */
export const usersListQuery = (filter: { role?: Role; search?: string; page: number }) =>
  queryOptions({
    queryKey: ['users', 'list', filter],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/dashboard/users', {
          params: {
            query: { role: filter.role, search: filter.search, page: filter.page, page_size: PAGE_SIZE },
          },
        }),
      ),
  });

/** Every client (for the client column and the client to give a user); the switcher asks the same. */
export const clientsQuery = queryOptions({
  queryKey: ['admin-clients'],
  queryFn: () => unwrap(api.GET('/api/v1/dashboard/admin/clients', { params: { query: { page_size: 100 } } })),
});

/** Brands (a super_admin sees them all), for the names of a user's memberships and the brands to add them to. */
export const brandsQuery = queryOptions({
  queryKey: ['users', 'brands'],
  queryFn: () => unwrap(api.GET('/api/v1/brands', { params: { query: { page_size: 100 } } })),
});
