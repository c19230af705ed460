import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type components } from '@/api/client';
import { ErrorState, Loading } from '@/components/states';
import { formatDateTime } from '@/lib/format';
import type { SystemSearch } from './routes';

type Entry = components['schemas']['LogsReport']['entries'][number];
type Filters = Omit<SystemSearch, 'follow'>;

/** How often a followed list asks for new lines, and the most lines it keeps (the oldest go first). */
export const FOLLOW_EVERY_MS = 2_000;
export const FOLLOW_MAX_LINES = 1_000;

const keyOf = (e: Entry) => `${e.timestamp}\u0000${e.container}\u0000${e.level}\u0000${e.message}`;

/**
 * The lines already shown and a new answer together, newest first, each line once (by its time, container, level
 * and text), at most FOLLOW_MAX_LINES.
 */
export function mergeLines(shown: Entry[], answer: Entry[]): Entry[] {
  const seen = new Set(shown.map(keyOf));
  const fresh = answer.filter((e) => !seen.has(keyOf(e)));
  if (!fresh.length) return shown;
  return [...fresh, ...shown]
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))
    .slice(0, FOLLOW_MAX_LINES);
}

const LEVEL_CLASS: Record<string, string> = {
  error: 'text-destructive',
  warn: 'text-warning',
};

/**
 * The log lines of the filters: the API's answer; while following, the same filters are read again every
 * FOLLOW_EVERY_MS while the tab is visible (TanStack Query pauses an interval in a hidden tab), and new lines are
 * added above the ones shown.
 */
export function LogsPanel({ filters, follow }: { filters: Filters; follow: boolean }) {
  const queryClient = useQueryClient();
  const queryKey = ['system', 'logs', filters];
  const logs = useQuery({
    queryKey,
    queryFn: async () => {
      const answer = await unwrap(api.GET('/api/v1/dashboard/admin/logs', { params: { query: filters } }));
      // While following, the lines shown stay and the new ones join them (the cache of these filters holds both).
      const shown = follow ? queryClient.getQueryData<typeof answer>(queryKey) : undefined;
      return shown ? { ...answer, entries: mergeLines(shown.entries, answer.entries) } : answer;
    },
    refetchInterval: follow ? FOLLOW_EVERY_MS : false,
    refetchIntervalInBackground: false,
  });

  if (logs.isPending) return <Loading label="Reading the logs…" />;
  if (logs.error && !logs.data) return <ErrorState error={logs.error} retry={() => void logs.refetch()} />;
  const entries = logs.data?.entries ?? [];
  return (
    <>
      <p className="mb-2 text-sm text-muted-foreground" aria-live="polite">
        {entries.length} lines, newest first
        {logs.data?.truncated && !follow ? ` (more matched: the ${filters.limit} newest are shown)` : ''}
        {follow ? ` · following, read ${formatDateTime(logs.data?.generated_at)}` : ''}
      </p>
      {logs.error && <ErrorState error={logs.error} retry={() => void logs.refetch()} />}
      <div
        role="log"
        aria-label="Log lines"
        tabIndex={0}
        className="max-h-[28rem] overflow-auto rounded-md border border-border bg-muted/30 font-mono text-xs"
      >
        {entries.length === 0 ? (
          <p className="p-4 font-sans text-sm">No lines match these filters in the last {filters.minutes} minutes.</p>
        ) : (
          <ol>
            {entries.map((e, i) => (
              <li key={`${keyOf(e)}#${i}`} className="border-b border-border px-3 py-1 break-words" data-log-line>
                <time dateTime={e.timestamp} className="text-muted-foreground">
                  {formatDateTime(e.timestamp)}
                </time>{' '}
                <span className="font-semibold">{e.container}</span>{' '}
                <span className={`uppercase ${LEVEL_CLASS[e.level] ?? ''}`}>{e.level}</span> {e.message}
              </li>
            ))}
          </ol>
        )}
      </div>
    </>
  );
}
