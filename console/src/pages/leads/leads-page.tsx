import { useCallback, useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { ColumnDef, RowSelectionState } from '@tanstack/react-table';
import { Check, Search, Tag, X } from 'lucide-react';
import { api, unwrap } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Input, Label, NativeSelect } from '@/components/ui/input';
import { formatNumber, formatRelative } from '@/lib/format';
import { cn } from '@/lib/utils';
import { leadsTypeRoute, type LeadsSearch } from './routes';
import {
  LEAD_TYPES,
  STATUS_FLAGS,
  TYPE_INFO,
  flagTerms,
  joinFlags,
  leadName,
  text,
  type Lead,
  type LeadType,
} from './lead-types';
import { FlagBadges, useFlagChange } from './flag-actions';
import { ExportLinks } from './export-links';
import { LeadPanel } from './lead-panel';

/** Leads a page of the list brings (the operation's largest page). */
const PAGE_SIZE = 100;
/** The ranked search answers its best matches only (no cursor). */
const SEARCH_LIMIT = 100;

/**
 * The JSON answer of an operation that also declares a Markdown one (`format=md`, a string): the console asks for
 * JSON (the default), so a string here is an answer the contract does not give it.
 */
function json<T>(answer: T): Exclude<T, string> {
  if (typeof answer === 'string') throw new Error('The API answered text where JSON was asked for');
  return answer as Exclude<T, string>;
}

/**
 * One table per resource type over the list/sync operation (a cursor, a page at a time as the table is scrolled),
 * or the ranked search's best matches while a search is given; flag filters, the search and the open lead in the
 * URL; qualify, reject and tag a selection in one call; export of the whole filtered set streamed by the API.
 */
export function LeadsPage() {
  const { type } = leadsTypeRoute.useParams() as { type: LeadType };
  const search = leadsTypeRoute.useSearch();
  const navigate = useNavigate({ from: leadsTypeRoute.fullPath });
  const info = TYPE_INFO[type];
  const setSearch = useCallback(
    (change: Partial<LeadsSearch>) => void navigate({ search: (prev) => ({ ...prev, ...change }) }),
    [navigate],
  );

  const list = useInfiniteQuery({
    queryKey: ['leads', 'list', type, search.flags ?? ''],
    queryFn: async ({ pageParam }) =>
      json(
        await unwrap(
          api.GET('/api/v1/idap/{resource_type}', {
            params: {
              path: { resource_type: type },
              query: { limit: PAGE_SIZE, flags: search.flags, cursor: pageParam },
            },
          }),
        ),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.has_more ? last.next_cursor : undefined),
    enabled: !search.q,
  });
  const found = useQuery({
    queryKey: ['leads', 'search', type, search.q ?? '', search.flags ?? ''],
    queryFn: async () =>
      json(
        await unwrap(
          api.GET('/api/v1/idap/{resource_type}/search', {
            params: {
              path: { resource_type: type },
              query: { q: search.q!, limit: SEARCH_LIMIT, flags: search.flags },
            },
          }),
        ),
      ),
    enabled: Boolean(search.q),
  });

  const rows: Lead[] = useMemo(
    () => (search.q ? (found.data?.items ?? []) : (list.data?.pages.flatMap((p) => p.items) ?? [])),
    [search.q, found.data, list.data],
  );
  const [selection, setSelection] = useState<RowSelectionState>({});
  const selected = useMemo(() => rows.filter((r) => selection[r.idap_ref]), [rows, selection]);
  const view = `${type}|${search.q ?? ''}|${search.flags ?? ''}`;
  const [selectionView, setSelectionView] = useState(view);
  if (selectionView !== view) {
    setSelectionView(view);
    setSelection({});
  }

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  const open = useCallback((lead: Lead) => setSearch({ lead: lead.idap_ref }), [setSearch]);
  const columns = useMemo<ColumnDef<Lead>[]>(
    () => [
      {
        id: 'name',
        header: 'Name',
        cell: ({ row }) => (
          <button
            type="button"
            className="max-w-[16rem] truncate text-left font-medium text-primary underline-offset-4 hover:underline"
            onClick={(e) => {
              e.stopPropagation();
              open(row.original);
            }}
          >
            {leadName(row.original)}
          </button>
        ),
      },
      ...info.columns.map(([field, header]): ColumnDef<Lead> => ({
        id: field,
        header,
        cell: ({ row }) => <span className="line-clamp-1 max-w-[18rem]">{text(row.original.data[field])}</span>,
      })),
      { id: 'flags', header: 'Flags', cell: ({ row }) => <FlagBadges flags={row.original.flags} /> },
      {
        id: 'modified',
        header: 'Changed',
        cell: ({ row }) => <span className="whitespace-nowrap">{formatRelative(row.original.modified_at)}</span>,
      },
    ],
    [info, open],
  );

  const active = search.q ? found : list;
  const tags = useMemo(() => {
    const seen = new Set(rows.flatMap((r) => r.flags).filter((f) => !(STATUS_FLAGS as readonly string[]).includes(f)));
    for (const t of flagTerms(search.flags)) {
      const name = t.replace(/^!/, '');
      if (!(STATUS_FLAGS as readonly string[]).includes(name)) seen.add(name);
    }
    return [...seen].sort();
  }, [rows, search.flags]);

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Leads"
        description="What your jobs found, one table per kind: qualify, reject or tag them, open one for its linked resources."
        actions={<ExportLinks type={type} flags={search.flags} searching={Boolean(search.q)} />}
      />
      <TypePicker type={type} />
      <div className="flex flex-wrap items-end gap-3">
        <SearchForm
          key={`${type}|${search.q ?? ''}`}
          label={info.label}
          initial={search.q ?? ''}
          onSearch={(q) => setSearch({ q: q || undefined, lead: undefined })}
        />
        <FlagFilter flags={search.flags} tags={tags} onChange={(flags) => setSearch({ flags, lead: undefined })} />
      </div>
      <p className="text-sm text-muted-foreground" role="status">
        {search.q
          ? found.data
            ? `${formatNumber(rows.length)} best matches for “${search.q}”${rows.length >= SEARCH_LIMIT ? ` (the first ${SEARCH_LIMIT})` : ''}${flagTerms(search.flags).some((t) => t === 'rejected') ? '' : '; rejected leads are left out'}.`
            : ''
          : list.data
            ? `${formatNumber(rows.length)} ${info.label.toLowerCase()} loaded${list.hasNextPage ? ', more as you scroll' : ', all of them'}.`
            : ''}
      </p>
      {selected.length > 0 && <BulkBar type={type} selected={selected} onDone={() => setSelection({})} />}
      <DataTable
        label={info.label}
        columns={columns}
        data={rows}
        getRowId={(r) => r.idap_ref}
        isLoading={active.isLoading}
        error={active.error}
        retry={() => void active.refetch()}
        selection={{ state: selection, onChange: setSelection }}
        onRowClick={open}
        onEndReached={search.q ? undefined : loadMore}
        empty={
          <div className="p-10 text-center text-sm text-muted-foreground">
            {search.q || search.flags
              ? `No ${info.label.toLowerCase()} match this view.`
              : `No ${info.label.toLowerCase()} yet: a job's results appear here.`}
          </div>
        }
        footer={
          !search.q && (list.hasNextPage || isFetchingNextPage) ? (
            <>
              <span className="text-sm text-muted-foreground">
                {isFetchingNextPage ? 'Loading more…' : 'More leads follow.'}
              </span>
              <Button variant="outline" size="sm" onClick={loadMore} disabled={isFetchingNextPage}>
                Load more
              </Button>
            </>
          ) : undefined
        }
      />
      <LeadPanel
        leadRef={search.lead}
        onOpen={(ref) => setSearch({ lead: ref })}
        onClose={() => setSearch({ lead: undefined })}
      />
    </div>
  );
}

/** The resource types as links: each its own URL, the current one marked. */
function TypePicker({ type }: { type: LeadType }) {
  return (
    <nav aria-label="Lead types" className="-mx-1 overflow-x-auto">
      <ul className="flex gap-1 px-1">
        {LEAD_TYPES.map((t) => (
          <li key={t}>
            <Link
              to="/leads/$type"
              params={{ type: t }}
              search={{}}
              className={cn(
                'inline-flex whitespace-nowrap rounded-md px-3 py-1.5 text-sm hover:bg-accent',
                t === type && 'bg-accent font-medium text-accent-foreground',
              )}
              aria-current={t === type ? 'page' : undefined}
            >
              {TYPE_INFO[t].label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function SearchForm({ label, initial, onSearch }: { label: string; initial: string; onSearch: (q: string) => void }) {
  const [q, setQ] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch(q.trim());
  };
  return (
    <form role="search" onSubmit={submit} className="flex min-w-0 flex-1 basis-64 items-end gap-2">
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <Label htmlFor="leads-search">Search {label.toLowerCase()}</Label>
        <Input
          id="leads-search"
          type="search"
          value={q}
          maxLength={500}
          onChange={(e) => setQ(e.target.value)}
          placeholder="Name, address, e-mail…"
        />
      </div>
      <Button type="submit" variant="secondary">
        <Search /> Search
      </Button>
      {initial && (
        <Button type="button" variant="ghost" onClick={() => onSearch('')}>
          <X /> Clear
        </Button>
      )}
    </form>
  );
}

type Tri = '' | 'with' | 'without';

/** Each flag: any, only with it, or only without it (the API's `name` and `!name`). */
function FlagFilter({
  flags,
  tags,
  onChange,
}: {
  flags: string | undefined;
  tags: string[];
  onChange: (flags: string | undefined) => void;
}) {
  const terms = flagTerms(flags);
  const stateOf = (name: string): Tri => (terms.includes(name) ? 'with' : terms.includes(`!${name}`) ? 'without' : '');
  const set = (name: string, state: Tri) => {
    const rest = terms.filter((t) => t !== name && t !== `!${name}`);
    onChange(joinFlags(state === 'with' ? [...rest, name] : state === 'without' ? [...rest, `!${name}`] : rest));
  };
  const tagTerms = terms.filter((t) => !(STATUS_FLAGS as readonly string[]).includes(t.replace(/^!/, '')));
  const [tag, setTag] = useState('');
  return (
    <fieldset className="flex flex-wrap items-end gap-2">
      <legend className="sr-only">Filter by flags</legend>
      {STATUS_FLAGS.map((name) => (
        <div key={name} className="flex flex-col gap-1">
          <Label htmlFor={`flag-${name}`} className="capitalize">
            {name}
          </Label>
          <NativeSelect
            id={`flag-${name}`}
            value={stateOf(name)}
            onChange={(e) => set(name, e.target.value as Tri)}
            className="w-32"
          >
            <option value="">Any</option>
            <option value="with">Only {name}</option>
            <option value="without">Not {name}</option>
          </NativeSelect>
        </div>
      ))}
      <form
        className="flex items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          const name = tag.trim().toLowerCase();
          if (/^[a-z][a-z0-9_-]{0,31}$/.test(name)) set(name, 'with');
          setTag('');
        }}
      >
        <div className="flex flex-col gap-1">
          <Label htmlFor="flag-tag">Tag</Label>
          <Input
            id="flag-tag"
            list="known-tags"
            value={tag}
            onChange={(e) => setTag(e.target.value)}
            className="w-32"
            pattern="[a-z][a-z0-9_\-]{0,31}"
            title="Lower-case letters, digits, - and _"
          />
          <datalist id="known-tags">
            {tags.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </div>
        <Button type="submit" variant="outline">
          <Tag /> Filter by tag
        </Button>
      </form>
      {tagTerms.map((t) => (
        <Badge key={t} className="h-9 gap-1 self-end">
          {t.startsWith('!') ? `not ${t.slice(1)}` : `tag ${t}`}
          <button
            type="button"
            aria-label={`Remove the filter ${t}`}
            className="rounded-sm hover:bg-accent"
            onClick={() => onChange(joinFlags(terms.filter((x) => x !== t)))}
          >
            <X className="size-3" />
          </button>
        </Badge>
      ))}
    </fieldset>
  );
}

/** Qualify, reject or tag the selected leads: one call of the bulk flags operation per 100 of them. */
function BulkBar({ type, selected, onDone }: { type: LeadType; selected: Lead[]; onDone: () => void }) {
  const change = useFlagChange();
  const [tag, setTag] = useState('');
  const refs = selected.map((l) => l.idap_ref);
  const apply = (body: { add?: string[]; remove?: string[] }) =>
    change.mutate({ refs, ...body }, { onSuccess: () => onDone() });
  const validTag = /^[a-z][a-z0-9_-]{0,31}$/.test(tag.trim());
  return (
    <section
      aria-label="Selected leads"
      className="flex flex-wrap items-center gap-2 rounded-md border border-border bg-muted/40 p-2"
    >
      <span className="text-sm font-medium">
        {formatNumber(selected.length)}{' '}
        {selected.length === 1 ? TYPE_INFO[type].one : TYPE_INFO[type].label.toLowerCase()} selected
      </span>
      <Button size="sm" onClick={() => apply({ add: ['qualified'], remove: ['new'] })} disabled={change.isPending}>
        <Check /> Qualify selected
      </Button>
      <Button
        size="sm"
        variant="destructive"
        onClick={() => apply({ add: ['rejected'], remove: ['new'] })}
        disabled={change.isPending}
      >
        <X /> Reject selected
      </Button>
      <form
        className="flex items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (validTag) apply({ add: [tag.trim()] });
        }}
      >
        <Label htmlFor="bulk-tag" className="sr-only">
          Tag to add to the selected leads
        </Label>
        <Input
          id="bulk-tag"
          value={tag}
          onChange={(e) => setTag(e.target.value.toLowerCase())}
          placeholder="tag"
          className="h-8 w-28"
        />
        <Button size="sm" variant="outline" type="submit" disabled={!validTag || change.isPending}>
          <Tag /> Tag selected
        </Button>
      </form>
      <ApiCallButton
        call={{
          operationId: 'batchUpdateFlags',
          method: 'POST',
          path: '/api/v1/idap/flags',
          body: { refs: refs.slice(0, 100), add: ['rejected'], remove: ['new'] },
        }}
      />
      <Button size="sm" variant="ghost" onClick={onDone}>
        Clear selection
      </Button>
    </section>
  );
}
