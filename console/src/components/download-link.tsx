import type { MouseEvent, ReactNode } from 'react';
import { Download } from 'lucide-react';
import { toast } from 'sonner';
import { selectedClient } from '@/api/client';
import { ApiError, describeError } from '@/api/errors';
import { buttonVariants } from './ui/button';

/**
 * A super_admin's download names the client acted for (X-Selected-Client-Id), which a link cannot send: the file is
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

/** A download of a file the API streams (an export), as a plain link: for a super_admin, of the client acted for. */
export function DownloadLink({
  href,
  fileName,
  title,
  children,
}: {
  href: string;
  fileName: string;
  title?: string;
  children: ReactNode;
}) {
  return (
    <a
      href={href}
      download={fileName}
      title={title}
      className={buttonVariants({ variant: 'outline', size: 'sm' })}
      onClick={(e) => {
        const client = selectedClient();
        if (client) void downloadActingFor(e, client);
      }}
    >
      <Download aria-hidden /> {children}
    </a>
  );
}
