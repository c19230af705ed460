import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '@/api/client';
import type { components } from '@contract';

export type Watch = components['schemas']['Watch'];
export type WatchRun = components['schemas']['WatchRun'];
export const PAGE_SIZE = 20;

/** Every key starts with 'watches', which the app shell invalidates on each watch.new_leads event. */
export const watchesListQuery = (state: 'active' | 'paused' | undefined, page: number) =>
  queryOptions({
    queryKey: ['watches', 'list', { state, page }],
    queryFn: () =>
      unwrap(api.GET('/api/v1/dashboard/client/watches', { params: { query: { state, page, page_size: PAGE_SIZE } } })),
    placeholderData: (previous) => previous,
  });

export const watchQuery = (watchId: string) =>
  queryOptions({
    queryKey: ['watches', 'detail', watchId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/dashboard/client/watches/{watch_id}', { params: { path: { watch_id: watchId } } })),
  });

export const watchRunsQuery = (watchId: string, page: number) =>
  queryOptions({
    queryKey: ['watches', 'runs', watchId, page],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/dashboard/client/watches/{watch_id}/runs', {
          params: { path: { watch_id: watchId }, query: { page, page_size: PAGE_SIZE } },
        }),
      ),
    placeholderData: (previous) => previous,
  });

export const watchPathParams = (watchId: string) => ({ watch_id: watchId });
