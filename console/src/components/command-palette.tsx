import { useEffect, useState, type ReactNode } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { Command } from 'cmdk';
import { Briefcase, Building2, Eye, FileText, Loader2, Search } from 'lucide-react';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from './api-call-button';
import { Dialog, DialogContent } from './ui/dialog';
import type { NavItem } from './app-shell';

/** How long the palette waits after the last key before it asks the API. */
const DEBOUNCE_MS = 200;
/** Results shown per group. */
const PER_GROUP = 6;
/** The rows of a list the palette looks through for a name or an id (the newest first, as the lists order them). */
const SCANNED = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Hit {
  id: string;
  label: string;
  detail: string;
  /** Where Enter goes, a path of the console. */
  to: string;
}

function useDebounced(value: string, ms: number) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

const matches = (term: string, ...texts: (string | null | undefined)[]) =>
  texts.some((text) => text?.toLowerCase().includes(term.toLowerCase()));

/**
 * Jobs: by the words of their query or their id (whole or its start) among the newest jobs, and by a whole id
 * asked of the API directly, so an older job is found by its id too.
 */
async function searchJobs(term: string): Promise<Hit[]> {
  const page = await unwrap(api.GET('/api/v1/dashboard/client/jobs', { params: { query: { page_size: SCANNED } } }));
  const jobs = page.jobs.filter((job) => matches(term, job.query, job.job_id));
  if (UUID.test(term) && !jobs.some((job) => job.job_id === term)) {
    const { data } = await api.GET('/api/v1/dashboard/client/jobs/{job_id}/status', {
      params: { path: { job_id: term } },
    });
    if (data) jobs.unshift(data);
  }
  return jobs.slice(0, PER_GROUP).map((job) => ({
    id: job.job_id,
    label: `${job.query} (${job.country_code})`,
    detail: `${job.status} · ${job.job_id}`,
    to: `/jobs/${job.job_id}`,
  }));
}

/** Businesses: the ranked search of the lead store. */
async function searchBusinesses(term: string): Promise<Hit[]> {
  const found = await unwrap(
    api.GET('/api/v1/idap/{resource_type}/search', {
      params: { path: { resource_type: 'businesses' }, query: { q: term, limit: PER_GROUP } },
    }),
  );
  // The JSON form was asked for; the contract also declares YAML and Markdown answers (strings).
  if (typeof found === 'string') return [];
  return found.items.map((item) => {
    const name = typeof item.data.name === 'string' ? item.data.name : item.resource_id;
    const city = typeof item.data.city === 'string' ? item.data.city : '';
    return {
      id: item.resource_id,
      label: name,
      detail: [city, item.flags.join(', ')].filter(Boolean).join(' · ') || item.idap_ref,
      to: `/leads/businesses?lead=${encodeURIComponent(item.idap_ref)}`,
    };
  });
}

/** Watches: by name or id among the client's watches, and by a whole id asked of the API directly. */
async function searchWatches(term: string): Promise<Hit[]> {
  const page = await unwrap(api.GET('/api/v1/dashboard/client/watches', { params: { query: { page_size: SCANNED } } }));
  const watches = page.watches.filter((watch) => matches(term, watch.name, watch.watch_id));
  if (UUID.test(term) && !watches.some((watch) => watch.watch_id === term)) {
    const { data } = await api.GET('/api/v1/dashboard/client/watches/{watch_id}', {
      params: { path: { watch_id: term } },
    });
    if (data) watches.unshift(data);
  }
  return watches.slice(0, PER_GROUP).map((watch) => ({
    id: watch.watch_id,
    label: watch.name,
    detail: `${watch.state} · ${watch.job_type} · ${watch.watch_id}`,
    to: `/watches/${watch.watch_id}`,
  }));
}

/** Posts: by the words of their title (the list operation's `q`), drafts and published. */
async function searchPosts(term: string): Promise<Hit[]> {
  const page = await unwrap(
    api.GET('/api/v1/dashboard/content/posts', { params: { query: { q: term, page_size: PER_GROUP } } }),
  );
  return page.posts.map((post) => ({
    id: post.id,
    label: post.title,
    detail: `${post.status} · /${post.slug}`,
    to: `/content/posts/${post.id}`,
  }));
}

interface Source {
  heading: string;
  key: string;
  icon: ReactNode;
  search: (term: string) => Promise<Hit[]>;
}

/** What the palette searches as the user types, a group each. */
const SOURCES: Source[] = [
  { heading: 'Jobs', key: 'jobs', icon: <Briefcase aria-hidden />, search: searchJobs },
  { heading: 'Businesses', key: 'leads', icon: <Building2 aria-hidden />, search: searchBusinesses },
  { heading: 'Watches', key: 'watches', icon: <Eye aria-hidden />, search: searchWatches },
  { heading: 'Posts', key: 'content', icon: <FileText aria-hidden />, search: searchPosts },
];

const itemClass =
  'flex cursor-pointer items-center gap-3 rounded-md px-3 py-2 text-sm aria-selected:bg-accent aria-selected:text-accent-foreground [&_svg]:size-4 [&_svg]:shrink-0 [&_svg]:text-muted-foreground';

function SourceGroup({ source, term, go }: { source: Source; term: string; go: (to: string) => void }) {
  // Query keys start with the area's word, so a live event that refreshes the area refreshes these results too.
  const result = useQuery({
    queryKey: [source.key, 'palette', term],
    queryFn: () => source.search(term),
    enabled: term.length > 0,
    staleTime: 10_000,
    retry: false,
  });
  if (!term || result.data?.length === 0) return null;
  return (
    <Command.Group
      heading={source.heading}
      className="px-1 py-1 [&_[cmdk-group-heading]]:px-3 [&_[cmdk-group-heading]]:py-1.5 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:text-muted-foreground"
    >
      {result.isPending && (
        <Command.Loading>
          <span className="flex items-center gap-2 px-3 py-2 text-sm text-muted-foreground">
            <Loader2 className="size-4 animate-spin" aria-hidden /> Searching {source.heading.toLowerCase()}…
          </span>
        </Command.Loading>
      )}
      {result.isError && (
        <p className="px-3 py-2 text-sm text-muted-foreground">
          {source.heading}: {describeError(result.error)}
        </p>
      )}
      {result.data?.map((hit) => (
        <Command.Item
          key={hit.id}
          value={`${source.key}:${hit.id}`}
          keywords={[hit.label, hit.id]}
          onSelect={() => go(hit.to)}
          className={itemClass}
        >
          {source.icon}
          <span className="min-w-0 flex-1">
            <span className="block truncate">{hit.label}</span>
            <span className="block truncate text-xs text-muted-foreground">{hit.detail}</span>
          </span>
        </Command.Item>
      ))}
    </Command.Group>
  );
}

/**
 * The command palette (Ctrl/Cmd-K, or `/`): the console's pages, and any job, business, watch or post by name or
 * id, searched through the API as the user types (debounced), grouped by kind; Enter opens the one chosen.
 */
export function CommandPalette({
  open,
  onOpenChange,
  pages: allPages,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The pages the user's role sees (the navigation's). */
  pages: NavItem[];
}) {
  const navigate = useNavigate();
  const [input, setInput] = useState('');
  const term = useDebounced(input.trim(), DEBOUNCE_MS);
  const go = (to: string) => {
    onOpenChange(false);
    setInput('');
    void navigate({ href: to });
  };
  const pages = allPages.filter((item) => !input.trim() || matches(input.trim(), item.label));
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title="Go to"
        description="A page, or a job, business or watch by name or id."
        className="top-[15%] max-w-xl translate-y-0 gap-2 p-4"
      >
        <Command shouldFilter={false} label="Search" loop className="flex flex-col gap-2">
          <div className="flex items-center gap-2 rounded-md border border-input px-3">
            <Search className="size-4 shrink-0 text-muted-foreground" aria-hidden />
            <Command.Input
              value={input}
              onValueChange={setInput}
              placeholder="Search jobs, businesses, watches or pages…"
              // Focus starts in the field (before the dialog's close button), so typing searches at once.
              autoFocus
              className="h-10 w-full bg-transparent text-sm outline-none placeholder:text-muted-foreground"
            />
          </div>
          <Command.List className="max-h-[60vh] overflow-y-auto" label="Results">
            <Command.Empty className="px-3 py-6 text-center text-sm text-muted-foreground">
              {term ? 'Nothing found.' : 'Type to search.'}
            </Command.Empty>
            {pages.length > 0 && (
              <Command.Group
                heading="Pages"
                className="px-1 py-1 [&_[cmdk-group-heading]]:px-3 [&_[cmdk-group-heading]]:py-1.5 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:text-muted-foreground"
              >
                {pages.map(({ to, label, icon: Icon }) => (
                  <Command.Item key={to} value={`page:${to}`} onSelect={() => go(to)} className={itemClass}>
                    <Icon aria-hidden /> {label}
                  </Command.Item>
                ))}
              </Command.Group>
            )}
            {SOURCES.map((source) => (
              <SourceGroup key={source.key} source={source} term={term} go={go} />
            ))}
          </Command.List>
        </Command>
        {term && (
          <div className="flex justify-end border-t border-border pt-2">
            <ApiCallButton
              label="Search businesses via the API"
              call={{
                operationId: 'searchResources',
                method: 'GET',
                path: '/api/v1/idap/{resource_type}/search',
                pathParams: { resource_type: 'businesses' },
                query: { q: term, limit: PER_GROUP },
              }}
            />
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
