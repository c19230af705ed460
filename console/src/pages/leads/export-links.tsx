import type { paths } from '@/api/client';
import { DownloadLink } from '@/components/download-link';
import type { LeadType } from './lead-types';

type ListQuery = NonNullable<paths['/api/v1/idap/{resource_type}']['get']['parameters']['query']>;

/** The list operation's download of every lead of the view (typed by the contract's parameters). */
export function exportUrl(type: LeadType, flags: string | undefined, format: 'csv' | 'jsonl'): string {
  const query = { format, ...(flags ? { flags } : {}) } satisfies ListQuery;
  return `/api/v1/idap/${encodeURIComponent(type)}?${new URLSearchParams(query)}`;
}

/**
 * Export of the whole filtered set (every page, not the rows loaded), streamed by the API as CSV or JSON Lines.
 * The ranked search answers its best matches only, so an export follows the flag filter, not the search text.
 */
export function ExportLinks({ type, flags, searching }: { type: LeadType; flags?: string; searching: boolean }) {
  const links = [
    { format: 'csv' as const, label: 'Export CSV' },
    { format: 'jsonl' as const, label: 'Export JSON' },
  ];
  return (
    <div className="flex flex-wrap items-center gap-2">
      {links.map(({ format, label }) => (
        <DownloadLink
          key={format}
          href={exportUrl(type, flags, format)}
          fileName={`${type}.${format}`}
          title={
            searching
              ? 'Every lead of the flag filter (the search ranks its best matches only)'
              : 'Every lead of this view'
          }
        >
          {label}
        </DownloadLink>
      ))}
    </div>
  );
}
