import { useMemo, useState, type ReactNode } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Check, X } from 'lucide-react';
import { toast } from 'sonner';
import { api, selectedClient, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import type { Role } from '@/api/session';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Pager } from '@/components/pager';
import { Empty } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Dialog, DialogClose, DialogContent } from '@/components/ui/dialog';
import { Label, NativeSelect } from '@/components/ui/input';
import { Warning } from '@/components/warning';
import { formatDateTime, formatRelative } from '@/lib/format';
import { useIdempotencyKey } from '@/lib/idempotency-key';
import type { components } from '@contract';
import { agentsRoute, REQUEST_STATES } from './routes';
import {
  formOfLimits,
  limitsForm,
  LimitsFields,
  limitsInWords,
  limitsOfForm,
  offerHints,
  type LimitsForm,
  type LimitValues,
} from './limits-fields';

type Review = components['schemas']['AccessRequestReview'];
type DecisionBody = { verdict: 'approved' | 'denied'; limits?: LimitValues };

const PAGE_SIZE = 20;

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
/** A lifetime in hours as a person says it: "72 hours (3 days)". */
export const hoursInWords = (hours: number) =>
  hours < 24 || hours % 24 ? plural(hours, 'hour') : `${plural(hours, 'hour')} (${plural(hours / 24, 'day')})`;

const text = (v: unknown) =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

/** The agent's fingerprint as it reported it (unverified): its type, host, platform, working directory, the rest. */
function Fingerprint({ value }: { value: Record<string, unknown> }) {
  const shown = ['agent_type', 'hostname', 'platform', 'cwd'];
  const others = Object.entries(value).filter(([k, v]) => !shown.includes(k) && text(v));
  return (
    <span className="flex flex-col">
      <span>
        <strong>{text(value.agent_type) || 'unknown agent'}</strong>
        {value.hostname ? (
          <>
            {' '}
            on <strong>{text(value.hostname)}</strong>
          </>
        ) : (
          ' (host not given)'
        )}
        {value.platform ? ` (${text(value.platform)})` : ''}
      </span>
      <span className="break-all">
        {value.cwd ? (
          <>
            working directory <code className="text-xs">{text(value.cwd)}</code>
          </>
        ) : (
          'working directory not given'
        )}
      </span>
      {others.length > 0 && (
        <span className="text-xs text-muted-foreground">
          also reported: {others.map(([k, v]) => `${k.replace(/_/g, ' ')}: ${text(v).slice(0, 200)}`).join('; ')}
        </span>
      )}
    </span>
  );
}

function brandsLine(r: Review) {
  if (r.brands.length) return r.brands.map((b) => b.name).join(', ');
  return r.decisions.approved.reason ?? 'none';
}

/**
 * One request as the approver reviews it, with the facts the e-mail's approve page shows, the limits pre-filled with
 * the offer, and the two decisions this approver may make (one they may not make says why instead of its button).
 */
function ReviewDialog({ review, close }: { review: Review; close: () => void }) {
  const queryClient = useQueryClient();
  const idempotency = useIdempotencyKey();
  const form = useForm<LimitsForm>({
    resolver: zodResolver(limitsForm),
    defaultValues: formOfLimits(review.limits.offered),
  });
  const values = useWatch({ control: form.control });
  const pending = review.status === 'pending';
  const acting = selectedClient();
  const path = '/api/v1/auth/pat/requests/{request_id}/decision';
  const callOf = (verdict: 'approved' | 'denied') => ({
    operationId: 'decideAccessRequest' as const,
    method: 'POST' as const,
    path,
    pathParams: { request_id: review.request_id },
    body: verdict === 'approved' ? { verdict, limits: limitsOfForm(values) } : { verdict },
    headers: { 'Idempotency-Key': idempotency.key, ...(acting ? { 'X-Selected-Client-Id': acting } : {}) },
  });
  const decide = useMutation({
    mutationFn: (body: DecisionBody) =>
      unwrap(
        api.POST(path, {
          params: {
            path: { request_id: review.request_id },
            header: { 'Idempotency-Key': idempotency.keyFor(body) },
          },
          body,
        }),
      ),
    onSuccess: (decision) => {
      idempotency.succeeded();
      toast.success(
        decision.status === 'approved'
          ? `Approved ${review.project_name}: ${decision.limits ? limitsInWords(decision.limits) : 'the limits offered'}. The agent picks its token up with its next poll.`
          : `Denied ${review.project_name}`,
      );
      close();
      return queryClient.invalidateQueries({ queryKey: ['agents'] });
    },
    onError: (error) => {
      toast.error(describeError(error));
      return queryClient.invalidateQueries({ queryKey: ['agents', 'requests'] });
    },
  });
  const approve = form.handleSubmit((v) => decide.mutate({ verdict: 'approved', limits: limitsOfForm(v) }));
  const facts: [string, ReactNode][] = [
    ['Client', review.client_name ?? review.client_id],
    ['Requested by', review.owner_email ?? 'not given'],
    ['Project', review.project_name],
    ['Agent', <Fingerprint key="f" value={review.fingerprint} />],
    [
      'Scopes',
      <ul key="s" className="list-disc pl-4">
        {review.scopes_in_words.map((s) => (
          <li key={s.scope}>
            <code className="text-xs">{s.scope}</code>: {s.words}
          </li>
        ))}
      </ul>,
    ],
    ['Lifetime', `${hoursInWords(review.ttl_hours)} from approval`],
    ['Brands granted', brandsLine(review)],
    [
      pending ? 'Request expires' : 'Expired at',
      `${formatDateTime(review.expires_at)} (${formatRelative(review.expires_at)})`,
    ],
  ];
  if (review.decided_at)
    facts.push([
      'Decided',
      `${formatDateTime(review.decided_at)}${review.decided_by ? ` by ${review.decided_by}` : ''}`,
    ]);
  if (review.approved_limits) facts.push(['Limits approved', limitsInWords(review.approved_limits)]);
  const { approved, denied } = review.decisions;
  return (
    <DialogContent
      title={`Access for ${review.project_name}?`}
      description={`An agent asks for access to ${review.client_name ?? 'the client'}.`}
      className="max-w-2xl"
    >
      <form onSubmit={approve} noValidate className="flex flex-col gap-4">
        <dl className="grid gap-x-4 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          {facts.map(([term, detail]) => (
            <div key={term} className="contents">
              <dt className="font-medium text-muted-foreground">{term}</dt>
              <dd className="min-w-0 break-words">{detail}</dd>
            </div>
          ))}
        </dl>
        {pending && approved.can_decide ? (
          <LimitsFields form={form} idPrefix="approve" hints={offerHints(review.limits)} />
        ) : (
          pending && <p className="text-sm">Limits offered: {limitsInWords(review.limits.offered)}.</p>
        )}
        {pending && !approved.can_decide && approved.reason && (
          <Warning>You cannot approve it: {approved.reason}.</Warning>
        )}
        {pending && !denied.can_decide && denied.reason && <Warning>You cannot deny it: {denied.reason}.</Warning>}
        {!pending && <p className="text-sm">{approved.reason ?? `This request is ${review.status}.`}</p>}
        <div className="flex flex-wrap items-center justify-end gap-2">
          {pending && approved.can_decide && <ApiCallButton label="Approve call" call={callOf('approved')} />}
          {pending && denied.can_decide && <ApiCallButton label="Deny call" call={callOf('denied')} />}
          <DialogClose asChild>
            <Button variant="outline" type="button">
              Close
            </Button>
          </DialogClose>
          {pending && denied.can_decide && (
            <Button
              variant="destructive"
              type="button"
              disabled={decide.isPending}
              onClick={() => decide.mutate({ verdict: 'denied' })}
            >
              <X aria-hidden /> Deny access
            </Button>
          )}
          {pending && approved.can_decide && (
            <Button type="submit" disabled={decide.isPending}>
              <Check aria-hidden /> {decide.isPending ? 'Deciding…' : 'Approve access'}
            </Button>
          )}
        </div>
      </form>
    </DialogContent>
  );
}

const STATE_TONES = { pending: 'info', approved: 'success', denied: 'danger', expired: 'neutral' } as const;

/** The access requests the signed-in approver could decide, in one state (pending by default). */
export function RequestsSection({ role }: { role: Role }) {
  const search = agentsRoute.useSearch();
  const navigate = useNavigate({ from: agentsRoute.fullPath });
  const status = search.status ?? 'pending';
  const page = search.page ?? 1;
  const query = { status, page, page_size: PAGE_SIZE };
  const list = useQuery({
    queryKey: ['agents', 'requests', query],
    queryFn: () => unwrap(api.GET('/api/v1/auth/pat/requests', { params: { query } })),
    placeholderData: (previous) => previous,
    // No live event announces a request (its e-mail does): pending ones are asked for again while the page is open.
    refetchInterval: status === 'pending' ? 15_000 : false,
  });
  const [reviewing, setReviewing] = useState<string | null>(null);
  const review = list.data?.requests.find((r) => r.request_id === reviewing) ?? null;
  const showClient = role === 'super_admin' && !selectedClient();

  const columns = useMemo<ColumnDef<Review>[]>(
    () => [
      {
        header: 'Agent',
        cell: ({ row }) => (
          <span className="flex flex-col">
            <span className="font-medium">{row.original.project_name}</span>
            <span className="text-xs text-muted-foreground">{row.original.owner_email ?? 'owner not given'}</span>
          </span>
        ),
      },
      ...(showClient
        ? [
            {
              header: 'Client',
              cell: ({ row }) => row.original.client_name ?? row.original.client_id,
            } as ColumnDef<Review>,
          ]
        : []),
      { header: 'Brands', cell: ({ row }) => brandsLine(row.original) },
      { header: 'Scopes', cell: ({ row }) => row.original.requested_scopes.join(', ') },
      { header: 'Lifetime', cell: ({ row }) => hoursInWords(row.original.ttl_hours) },
      {
        header: status === 'pending' ? 'Expires' : 'Decided',
        cell: ({ row }) =>
          status === 'pending' || !row.original.decided_at
            ? formatRelative(row.original.expires_at)
            : `${formatRelative(row.original.decided_at)}${row.original.decided_by ? ` by ${row.original.decided_by}` : ''}`,
      },
      {
        header: 'State',
        cell: ({ row }) => <Badge tone={STATE_TONES[row.original.status]}>{row.original.status}</Badge>,
      },
      {
        id: 'actions',
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row }) => (
          <Button
            variant={row.original.status === 'pending' ? 'default' : 'outline'}
            size="sm"
            aria-label={`Review ${row.original.project_name} (${row.original.owner_email ?? 'owner not given'})`}
            onClick={() => setReviewing(row.original.request_id)}
          >
            Review
          </Button>
        ),
      },
    ],
    [showClient, status],
  );

  return (
    <section aria-labelledby="requests-heading" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <h2 id="requests-heading" className="text-lg font-semibold">
          Access requests
        </h2>
        <div className="flex flex-wrap items-end gap-2">
          <div className="flex flex-col gap-1">
            <Label htmlFor="requests-status">State</Label>
            <NativeSelect
              id="requests-status"
              value={status}
              onChange={(e) =>
                void navigate({
                  search: (prev) => ({
                    ...prev,
                    status: e.target.value === 'pending' ? undefined : (e.target.value as Review['status']),
                    page: undefined,
                  }),
                })
              }
            >
              {REQUEST_STATES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </NativeSelect>
          </div>
          <ApiCallButton
            call={{ operationId: 'listAccessRequests', method: 'GET', path: '/api/v1/auth/pat/requests', query }}
          />
        </div>
      </div>
      <p className="text-sm text-muted-foreground">
        {role === 'super_admin'
          ? 'You decide as the client’s administrator: an approval grants its oldest active brand, or all its brands for a multi-brand request.'
          : 'You decide as a brand admin: an approval grants the oldest active brand you administer; a multi-brand request needs the client’s administrator.'}{' '}
        The approval e-mail’s links decide the same requests: whichever decides first wins.
      </p>
      <DataTable
        label="Access requests"
        columns={columns}
        data={list.data?.requests ?? []}
        getRowId={(r) => r.request_id}
        isLoading={list.isLoading}
        error={list.error}
        retry={() => void list.refetch()}
        height="min(50vh, 32rem)"
        empty={
          <Empty title={`No ${status} access requests`}>
            An agent asks for access with <code>POST /api/v1/auth/pat/request</code>; its request appears here and in
            the approval e-mail.
          </Empty>
        }
        footer={
          list.data && (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={list.data.total}
              onPage={(to) => void navigate({ search: (prev) => ({ ...prev, page: to > 1 ? to : undefined }) })}
            />
          )
        }
      />
      <Dialog open={review !== null} onOpenChange={(open) => !open && setReviewing(null)}>
        {review && <ReviewDialog key={review.request_id} review={review} close={() => setReviewing(null)} />}
      </Dialog>
    </section>
  );
}
