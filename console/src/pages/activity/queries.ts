import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type paths } from '@/api/client';
import type { components } from '@contract';

export type Shift = components['schemas']['Shift'];
export type ShiftRole = Shift['role'];
export type ShiftQuery = NonNullable<paths['/api/v1']['get']['parameters']['query']>;

export const ACTOR_ROLES: Record<ShiftRole, string> = {
  super_admin: 'Super admin',
  brand_admin: 'Brand admin',
  client_user: 'Client user',
  agent: 'Agent',
};

/**
 * The client's shifts (listShifts) for the window and filters of the URL. The client is the one acted for: the key
 * names it, so a super_admin switching clients never sees the previous client's shifts.
 */
export const shiftsQuery = (clientKey: string | null, query: ShiftQuery) =>
  queryOptions({
    queryKey: ['activity', clientKey, 'shifts', query],
    queryFn: () => unwrap(api.GET('/api/v1', { params: { query } })),
  });

export const shiftDetailQuery = (
  clientKey: string | null,
  query: { actor_id: string; started_at: string; ended_at: string },
) =>
  queryOptions({
    queryKey: ['activity', clientKey, 'shift', query],
    queryFn: () => unwrap(api.GET('/api/v1/detail', { params: { query } })),
  });

export const digestQuery = (clientKey: string | null) =>
  queryOptions({
    queryKey: ['activity', clientKey, 'digest'],
    queryFn: () => unwrap(api.GET('/api/v1/digest-settings')),
  });

export const anomaliesQuery = (clientKey: string | null) =>
  queryOptions({
    queryKey: ['activity', clientKey, 'anomalies'],
    queryFn: () => unwrap(api.GET('/api/v1/anomalies')),
  });

/** The CSV export of the same shifts (exportShifts), as the API's own URL. */
export function exportUrl(query: ShiftQuery): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return `/api/v1/export.csv${text ? `?${text}` : ''}`;
}
