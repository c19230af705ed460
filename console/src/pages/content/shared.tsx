import { Link, useNavigate } from '@tanstack/react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Trash2 } from 'lucide-react';
import { toast } from 'sonner';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { Button } from '@/components/ui/button';
import { Dialog, DialogClose, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import type { ApiCall } from '@/lib/api-call';

/** The contract's slug pattern (lower-case words joined by hyphens), as every content create and update has it. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A slug from a title, as the editor proposes it until the slug is edited: accents dropped, words joined by -. */
export function slugify(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]/)
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > 120) break;
    slug = next;
  }
  return slug;
}

/** Query keys of the content area: every one starts with 'content', so a change refreshes what shows it. */
export const contentKeys = {
  all: ['content'] as const,
  list: (kind: string, search: object) => ['content', kind, 'list', search] as const,
  one: (kind: string, id: string) => ['content', kind, 'one', id] as const,
  site: ['content', 'site'] as const,
};

const SECTIONS = [
  { to: '/content/posts', label: 'Posts' },
  { to: '/content/pages', label: 'Pages' },
  { to: '/content/authors', label: 'Authors' },
  { to: '/content/tags', label: 'Tags' },
  { to: '/content/categories', label: 'Categories' },
] as const;

/** The content area's sections, as links (each section is a route: Back and a link work). */
export function ContentSections() {
  return (
    <nav aria-label="Content sections" className="mb-4 overflow-x-auto">
      <ul className="inline-flex gap-1 rounded-md bg-muted p-1">
        {SECTIONS.map((s) => (
          <li key={s.to}>
            <Link
              to={s.to}
              search={{}}
              className="block rounded px-3 py-1 text-sm font-medium text-muted-foreground"
              activeProps={{ className: 'bg-background text-foreground shadow-sm', 'aria-current': 'page' }}
            >
              {s.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** aria-describedby and aria-invalid of a control inside a Field. */
export const described = (id: string, error?: string, hint?: boolean) => ({
  'aria-invalid': error ? true : undefined,
  'aria-describedby': [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined,
});

/** Whether an image URL may be shown in the console: its CSP lets images load from this origin (and blob:) only. */
export function sameOriginImage(url: string | null | undefined): boolean {
  if (!url) return false;
  try {
    const parsed = new URL(url, window.location.origin);
    return parsed.origin === window.location.origin || parsed.protocol === 'blob:';
  } catch {
    return false;
  }
}

/**
 * How a post body is drawn in the editor and in the preview: the elements the public renderer writes (headings,
 * lists, quotes, code, links, images), styled here because the console's reset takes their default look away.
 */
export const PROSE =
  'max-w-none text-sm leading-6 [&_a]:text-primary [&_a]:underline [&_blockquote]:border-l-4 [&_blockquote]:border-border [&_blockquote]:pl-3 [&_blockquote]:italic [&_code]:rounded [&_code]:bg-muted [&_code]:px-1 [&_h2]:mt-4 [&_h2]:text-xl [&_h2]:font-semibold [&_h3]:mt-3 [&_h3]:text-lg [&_h3]:font-semibold [&_hr]:my-4 [&_hr]:border-border [&_img]:max-w-full [&_li]:my-0.5 [&_ol]:list-decimal [&_ol]:pl-6 [&_p]:my-2 [&_pre]:overflow-x-auto [&_pre]:rounded [&_pre]:bg-muted [&_pre]:p-3 [&_ul]:list-disc [&_ul]:pl-6';

/** Deletes a post or a page after a confirmation naming it, then returns to its list. */
export function DeleteContentItem({
  noun,
  title,
  call,
  remove,
  listPath,
}: {
  noun: 'post' | 'page';
  title: string;
  call: ApiCall;
  remove: () => Promise<unknown>;
  listPath: '/content/posts' | '/content/pages';
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const mutation = useMutation({
    mutationFn: remove,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: contentKeys.all });
      toast.success(`Deleted “${title}”`);
      void navigate({ to: listPath, search: {} });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <Dialog>
      <DialogTrigger asChild>
        <Button variant="outline">
          <Trash2 aria-hidden /> Delete
        </Button>
      </DialogTrigger>
      <DialogContent title={`Delete this ${noun}?`} description={`“${title}” goes, from the public site too.`}>
        <div className="flex flex-wrap justify-end gap-2">
          <ApiCallButton call={call} />
          <DialogClose asChild>
            <Button variant="outline">Keep it</Button>
          </DialogClose>
          <Button variant="destructive" disabled={mutation.isPending} onClick={() => mutation.mutate()}>
            Delete the {noun}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
