import type { MouseEvent } from 'react';
import { Download } from 'lucide-react';
import { toast } from 'sonner';
import { selectedClient, type paths } from '@/api/client';
import { ApiError, describeError } from '@/api/errors';
import { buttonVariants } from '@/components/ui/button';
import type { LeadType } from './lead-types';

type ListQuery = NonNullable<paths['/api/v1/idap/{resource_type}']['get']['parameters']['query']>;

/** The list operation's download of every lead of the view (typed by the contract's parameters). */
export function exportUrl(type: LeadType, flags: string | undefined, format: 'csv' | 'jsonl'): string {
  const query = { format, ...(flags ? { flags } : {}) } satisfies ListQuery;
  return `/api/v1/idap/${encodeURIComponent(type)}?${new URLSearchParams(query)}`;
}

/**
 * A super_admin's downloads name the client acted for (X-Selected-Client-Id), which a link cannot send: the file is
 * fetched with the header and handed to the browser as a download. Everyone else follows the link itself, which the
 * session cookie authenticates and the API streams.
 */
async function downloadActingFor(e: MouseEvent<HTMLAnchorElement>, clientId: string) {
  e.preventDefault();
  const link = e.currentTarget;
  try {
    const res = await fetch(link.href, { credentials: 'same-origin', headers: { 'x-selected-client-id': clientId } });
    if (!res.ok) throw ApiError.from(res, await res.json().catch(() => null));
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = link.getAttribute('download') ?? '';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (error) {
    toast.error(describeError(error));
  }
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
        <a
          key={format}
          href={exportUrl(type, flags, format)}
          download={`${type}.${format}`}
          className={buttonVariants({ variant: 'outline', size: 'sm' })}
          title={
            searching
              ? 'Every lead of the flag filter (the search ranks its best matches only)'
              : 'Every lead of this view'
          }
          onClick={(e) => {
            const client = selectedClient();
            if (client) void downloadActingFor(e, client);
          }}
        >
          <Download aria-hidden /> {label}
        </a>
      ))}
    </div>
  );
}
