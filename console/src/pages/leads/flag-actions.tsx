import { useMutation, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api, unwrap, type components } from '@/api/client';
import { describeError } from '@/api/errors';
import { Badge } from '@/components/ui/card';
import { flagTerms, matchesFlags, type Lead, type LeadType } from './lead-types';

type Page = components['schemas']['ResourcePage'];
type Found = components['schemas']['SearchResult'];

const TONE: Record<string, 'success' | 'danger' | 'info' | 'neutral'> = {
  qualified: 'success',
  rejected: 'danger',
  new: 'info',
};

/** A lead's flags: the interface's own in their colours, the tenant's tags plain. */
export function FlagBadges({ flags }: { flags: string[] }) {
  if (!flags.length) return <span className="text-muted-foreground">—</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {flags.map((f) => (
        <Badge key={f} tone={TONE[f] ?? 'neutral'}>
          {f}
        </Badge>
      ))}
    </span>
  );
}

/**
 * Leads whose flags changed, put into every loaded list and search in place (a list is ordered by change, so a
 * refetch would move them to its end, past the settle bound): kept where the view's flag filter still admits them,
 * dropped where it no longer does. The open detail panels are refetched.
 */
export function applyChanged(queryClient: QueryClient, changed: Lead[]) {
  if (!changed.length) return;
  const byRef = new Map(changed.map((l) => [l.idap_ref, l]));
  const update = (items: Lead[], filter: string[]) =>
    items.flatMap((item) => {
      const now = byRef.get(item.idap_ref);
      if (!now) return [item];
      return matchesFlags(now.flags, filter) ? [{ ...item, flags: now.flags, modified_at: now.modified_at }] : [];
    });
  for (const query of queryClient.getQueryCache().findAll({ queryKey: ['leads', 'list'] })) {
    const filter = flagTerms(query.queryKey[3] as string);
    queryClient.setQueryData<InfiniteData<Page>>(
      query.queryKey,
      (data) => data && { ...data, pages: data.pages.map((p) => ({ ...p, items: update(p.items, filter) })) },
    );
  }
  for (const query of queryClient.getQueryCache().findAll({ queryKey: ['leads', 'search'] })) {
    const filter = flagTerms(query.queryKey[4] as string);
    // A search leaves rejected leads out unless its filter names `rejected`.
    if (!filter.some((t) => t.replace(/^!/, '') === 'rejected')) filter.push('!rejected');
    queryClient.setQueryData<Found>(query.queryKey, (data) => data && { ...data, items: update(data.items, filter) });
  }
  void queryClient.invalidateQueries({ queryKey: ['leads', 'detail'] });
}

export interface FlagChange {
  refs: string[];
  add?: string[];
  remove?: string[];
}

/**
 * The flags of many leads changed by the bulk operation (POST /idap/flags), one call per 100 refs (its bound):
 * a per-ref failure is reported, the others keep their change.
 */
export function useFlagChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ refs, add, remove }: FlagChange) => {
      const changed: Lead[] = [];
      const failed: string[] = [];
      for (let i = 0; i < refs.length; i += 100) {
        const answer = await unwrap(
          api.POST('/api/v1/idap/flags', { body: { refs: refs.slice(i, i + 100), add, remove } }),
        );
        changed.push(...Object.values(answer.results));
        failed.push(...Object.entries(answer.errors).map(([ref, why]) => `${ref}: ${why}`));
      }
      return { changed, failed };
    },
    onSuccess: ({ changed, failed }, { add }) => {
      applyChanged(queryClient, changed);
      const what = add?.includes('qualified') ? 'qualified' : add?.includes('rejected') ? 'rejected' : 'changed';
      toast.success(`${changed.length} ${changed.length === 1 ? 'lead' : 'leads'} ${what}`);
      if (failed.length) toast.error(`${failed.length} not changed: ${failed.slice(0, 3).join('; ')}`);
    },
    onError: (error) => toast.error(describeError(error)),
  });
}

/** One lead's flags changed (PATCH /idap/{resource_type}/{resource_id}/flags). */
export function useLeadFlagChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      lead,
      add,
      remove,
    }: {
      lead: Pick<Lead, 'resource_type' | 'resource_id'>;
      add?: string[];
      remove?: string[];
    }) =>
      unwrap(
        api.PATCH('/api/v1/idap/{resource_type}/{resource_id}/flags', {
          params: { path: { resource_type: lead.resource_type as LeadType, resource_id: lead.resource_id } },
          body: { add, remove },
        }),
      ),
    onSuccess: (lead, { add }) => {
      applyChanged(queryClient, [lead]);
      toast.success(
        add?.includes('qualified') ? 'Qualified' : add?.includes('rejected') ? 'Rejected' : 'Flags changed',
      );
    },
    onError: (error) => toast.error(describeError(error)),
  });
}
