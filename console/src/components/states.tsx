import type { ReactNode } from 'react';
import { AlertTriangle, Inbox, Loader2 } from 'lucide-react';
import { ApiError, describeError } from '@/api/errors';
import { Button } from './ui/button';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div role="status" className="flex items-center gap-2 p-6 text-sm text-muted-foreground">
      <Loader2 className="size-4 animate-spin" aria-hidden /> {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 p-10 text-center">
      <Inbox className="size-8 text-muted-foreground" aria-hidden />
      <p className="font-medium">{title}</p>
      {children && <div className="text-sm text-muted-foreground">{children}</div>}
    </div>
  );
}

/** A refusal that trying again cannot change (the role may not; the record is not there). */
const isFinalRefusal = (error: unknown) => error instanceof ApiError && (error.status === 403 || error.status === 404);

/** A failed load in words (the API's detail, when to retry), with a retry button: never a blank page. */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div role="alert" className="flex flex-col items-start gap-3 rounded-md border border-destructive p-4 text-sm">
      <p className="flex items-center gap-2 font-medium text-destructive">
        <AlertTriangle className="size-4" aria-hidden /> {describeError(error)}
      </p>
      {retry && !isFinalRefusal(error) && (
        <Button variant="outline" size="sm" onClick={retry}>
          Try again
        </Button>
      )}
    </div>
  );
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        {description && <p className="text-sm text-muted-foreground">{description}</p>}
      </div>
      {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
    </div>
  );
}

/** What Loaded reads of a query (TanStack Query's result, or a page's own subset of it). */
interface QueryState<T> {
  isPending: boolean;
  error: unknown;
  data?: T;
  refetch: () => unknown;
}

/** A query's answer drawn once it is there; meanwhile "Loading…", or the failure in words with a retry. */
export function Loaded<T>({
  query,
  label,
  children,
}: {
  query: QueryState<T>;
  label?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading label={label} />;
  if (query.error) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  // Neither pending nor failed: the query has its answer.
  return children(query.data as T);
}
