import { useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { RefreshCw, Save, Trash2 } from 'lucide-react';
import { toast } from 'sonner';
import { api, selectedClient, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import type { Role } from '@/api/session';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Pager } from '@/components/pager';
import { SecretValue } from '@/components/secret-value';
import { Empty } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import { Dialog, DialogClose, DialogContent } from '@/components/ui/dialog';
import { Label } from '@/components/ui/input';
import { Warning } from '@/components/warning';
import { formatDateTime, formatNumber, formatRelative } from '@/lib/format';
import type { ApiCall } from '@/lib/api-call';
import type { components } from '@contract';
import { formOfLimits, limitsForm, LimitsFields, limitsInWords, limitsOfForm, type LimitsForm } from './limits-fields';

type Token = components['schemas']['ListedAccessToken'];
type AgentUser = components['schemas']['AgentUser'];
type Regenerated = {
  agent_user_id: string;
  brand_id: number;
  token_id: string;
  access_token: string;
  expires_at: string;
};

const PAGE_SIZE = 20;
const usd = (n: number) => `USD ${formatNumber(n)}`;

/** What an agent user spent this month, against its budget. */
const spendLine = (u: AgentUser) =>
  u.spend.budget_usd === null
    ? `${usd(u.spend.amount_usd)} (no budget)`
    : `${usd(u.spend.amount_usd)} of ${usd(u.spend.budget_usd)}`;

/** A limits form that saves with one call; the fields show the limits held now. */
function LimitsEditor({
  idPrefix,
  current,
  call,
  save,
}: {
  idPrefix: string;
  current: components['schemas']['AgentLimitValues'];
  call: (limits: components['schemas']['AgentLimitValues']) => ApiCall;
  save: (limits: components['schemas']['AgentLimitValues']) => Promise<unknown>;
}) {
  const queryClient = useQueryClient();
  const form = useForm<LimitsForm>({ resolver: zodResolver(limitsForm), defaultValues: formOfLimits(current) });
  const submit = form.handleSubmit(async (v) => {
    try {
      const limits = limitsOfForm(v);
      await save(limits);
      toast.success(`Limits saved: ${limitsInWords(limits)}`);
      await queryClient.invalidateQueries({ queryKey: ['agents', 'tokens'] });
    } catch (error) {
      toast.error(describeError(error));
    }
  });
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-2">
      <LimitsFields form={form} idPrefix={idPrefix} />
      <div className="flex flex-wrap justify-end gap-2">
        <ApiCallButton call={call(limitsOfForm(form.getValues()))} />
        <Button type="submit" size="sm" disabled={form.formState.isSubmitting}>
          <Save aria-hidden /> Save limits
        </Button>
      </div>
    </form>
  );
}

/**
 * One token's management: its limits (its agent user's in each brand, or its own without a brand), taking it out of
 * a brand, a new token in place of the old one (the plaintext shown once, by the section), and revoking it.
 */
function ManageDialog({
  token,
  close,
  regenerated,
}: {
  token: Token;
  close: () => void;
  regenerated: (r: Regenerated) => void;
}) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['agents', 'tokens'] });
  const headers = selectedClient() ? { 'X-Selected-Client-Id': selectedClient()! } : undefined;
  const act = useMutation({
    mutationFn: async (action: { kind: 'revoke' } | { kind: 'remove' | 'regenerate'; user: AgentUser }) => {
      if (action.kind === 'revoke') {
        await unwrap(api.DELETE('/api/v1/auth/pat/{token_id}', { params: { path: { token_id: token.token_id } } }));
        toast.success(`Revoked ${token.token_prefix}… (${token.project_name}); it stops working now`);
        return;
      }
      const path = { brand_id: action.user.brand_id, agent_user_id: action.user.agent_user_id };
      if (action.kind === 'remove') {
        await unwrap(api.DELETE('/api/v1/brands/{brand_id}/agent-users/{agent_user_id}', { params: { path } }));
        toast.success(`${token.project_name} no longer acts for brand ${action.user.brand_id}`);
        return;
      }
      // The plaintext goes to the section's state, shown once; nothing of it is returned into the mutation's cache.
      regenerated(
        await unwrap(
          api.POST('/api/v1/brands/{brand_id}/agent-users/{agent_user_id}/regenerate', { params: { path } }),
        ),
      );
    },
    gcTime: 0,
    onSuccess: () => {
      close();
      return refresh();
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const active = token.status === 'active';
  return (
    <DialogContent
      title={`${token.project_name} (${token.token_prefix}…)`}
      description={`${token.owner_email ?? 'Owner not given'}; scopes ${token.scopes.join(', ')}; expires ${formatDateTime(token.expires_at)}.`}
      className="max-w-2xl"
    >
      <div className="flex max-h-[70vh] flex-col gap-4 overflow-y-auto">
        {!active && <p className="text-sm">This token is {token.status}; nothing of it can change.</p>}
        {active && token.agent_users.length === 0 && (
          <section aria-labelledby="token-limits" className="flex flex-col gap-2">
            <h3 id="token-limits" className="font-medium">
              The token’s own limits (it acts for no brand)
            </h3>
            <LimitsEditor
              idPrefix="token"
              current={token}
              call={(limits) => ({
                operationId: 'updateAccessTokenLimits',
                method: 'PATCH',
                path: '/api/v1/auth/pat/{token_id}/limits',
                pathParams: { token_id: token.token_id },
                body: limits,
                headers,
              })}
              save={(limits) =>
                unwrap(
                  api.PATCH('/api/v1/auth/pat/{token_id}/limits', {
                    params: { path: { token_id: token.token_id } },
                    body: limits,
                  }),
                )
              }
            />
          </section>
        )}
        {active &&
          token.agent_users.map((user) => {
            const path = { brand_id: user.brand_id, agent_user_id: user.agent_user_id };
            return (
              <section
                key={user.agent_user_id}
                aria-labelledby={`brand-${user.brand_id}`}
                className="flex flex-col gap-2 rounded-md border border-border p-3"
              >
                <h3 id={`brand-${user.brand_id}`} className="font-medium">
                  In brand {user.brand_id}
                </h3>
                <p className="text-sm text-muted-foreground">
                  Spent this month: {spendLine(user)}
                  {user.spend.remaining_usd !== null && `, ${usd(user.spend.remaining_usd)} left`}; the budget starts
                  again {formatDateTime(user.spend.period_end)}.
                </p>
                <LimitsEditor
                  idPrefix={`brand-${user.brand_id}`}
                  current={user}
                  call={(limits) => ({
                    operationId: 'updateAgentUserLimits',
                    method: 'PATCH',
                    path: '/api/v1/brands/{brand_id}/agent-users/{agent_user_id}',
                    pathParams: path,
                    body: limits,
                  })}
                  save={(limits) =>
                    unwrap(
                      api.PATCH('/api/v1/brands/{brand_id}/agent-users/{agent_user_id}', {
                        params: { path },
                        body: limits,
                      }),
                    )
                  }
                />
                <Warning>
                  A new token replaces the agent’s at once (the old one stops in every brand); give the new one to the
                  agent. Taking the agent out of this brand leaves its other brands as they are.
                </Warning>
                <div className="flex flex-wrap justify-end gap-2">
                  <ApiCallButton
                    label="Regenerate call"
                    call={{
                      operationId: 'regenerateAgentToken',
                      method: 'POST',
                      path: '/api/v1/brands/{brand_id}/agent-users/{agent_user_id}/regenerate',
                      pathParams: path,
                    }}
                  />
                  <Button
                    variant="outline"
                    size="sm"
                    disabled={act.isPending}
                    onClick={() => act.mutate({ kind: 'regenerate', user })}
                  >
                    <RefreshCw aria-hidden /> Regenerate token
                  </Button>
                  <ApiCallButton
                    label="Remove call"
                    call={{
                      operationId: 'revokeAgentUser',
                      method: 'DELETE',
                      path: '/api/v1/brands/{brand_id}/agent-users/{agent_user_id}',
                      pathParams: path,
                    }}
                  />
                  <Button
                    variant="outline"
                    size="sm"
                    disabled={act.isPending}
                    onClick={() => act.mutate({ kind: 'remove', user })}
                  >
                    <Trash2 aria-hidden /> Remove from brand {user.brand_id}
                  </Button>
                </div>
              </section>
            );
          })}
        {active && (
          <section aria-labelledby="token-revoke" className="flex flex-col gap-2">
            <h3 id="token-revoke" className="font-medium">
              Revoke
            </h3>
            <Warning>
              The token stops working at once in every brand; the watches it created are paused until someone resumes
              them.
            </Warning>
            <div className="flex flex-wrap justify-end gap-2">
              <ApiCallButton
                label="Revoke call"
                call={{
                  operationId: 'revokeAccessToken',
                  method: 'DELETE',
                  path: '/api/v1/auth/pat/{token_id}',
                  pathParams: { token_id: token.token_id },
                  headers,
                }}
              />
              <Button variant="destructive" disabled={act.isPending} onClick={() => act.mutate({ kind: 'revoke' })}>
                <Trash2 aria-hidden /> Revoke the token
              </Button>
            </div>
          </section>
        )}
        <div className="flex justify-end">
          <DialogClose asChild>
            <Button variant="outline">Close</Button>
          </DialogClose>
        </div>
      </div>
    </DialogContent>
  );
}

const limitsCell = (t: Token) =>
  t.agent_users.length
    ? t.agent_users.map((u) => (
        <span key={u.agent_user_id} className="block">
          brand {u.brand_id}: {limitsInWords(u)}
        </span>
      ))
    : limitsInWords(t);

/** Where a page keeps the tokens' view: both pages that show it (Agents, Credentials) hold it in their URL. */
export interface TokensView {
  tokens_page?: number;
  inactive?: boolean;
}

/**
 * The agent tokens approved: limits, spend this month, last use; managed one at a time. One list for the Agents page
 * and the client's Credentials page, each keeping its view in its own URL (`view`, `onView`).
 */
export function TokensSection({
  role,
  view,
  onView,
}: {
  role: Role;
  view: TokensView;
  onView: (change: TokensView) => void;
}) {
  const page = view.tokens_page ?? 1;
  const inactive = view.inactive ?? false;
  const acting = selectedClient();
  const query = {
    page,
    page_size: PAGE_SIZE,
    include_inactive: inactive,
    ...(role === 'super_admin' && acting ? { client_id: acting } : {}),
  };
  const list = useQuery({
    queryKey: ['agents', 'tokens', query],
    queryFn: () => unwrap(api.GET('/api/v1/auth/pat/agents', { params: { query } })),
    placeholderData: (previous) => previous,
  });
  const [managing, setManaging] = useState<string | null>(null);
  const token = list.data?.agents.find((t) => t.token_id === managing) ?? null;
  const [secret, setSecret] = useState<Regenerated | null>(null);
  const showClient = role === 'super_admin' && !acting;

  const columns = useMemo<ColumnDef<Token>[]>(
    () => [
      {
        header: 'Token',
        cell: ({ row }) => (
          <span className="flex flex-col">
            <span className="font-medium">{row.original.project_name}</span>
            <code className="text-xs">{row.original.token_prefix}…</code>
          </span>
        ),
      },
      { header: 'Owner', cell: ({ row }) => row.original.owner_email ?? '—' },
      { header: 'Scopes', cell: ({ row }) => row.original.scopes.join(', ') },
      ...(showClient
        ? [
            {
              header: 'Client',
              cell: ({ row }) => <code className="text-xs">{row.original.client_id}</code>,
            } as ColumnDef<Token>,
          ]
        : []),
      { header: 'Limits', cell: ({ row }) => <span className="text-xs">{limitsCell(row.original)}</span> },
      {
        header: 'Spend this month',
        cell: ({ row }) =>
          row.original.agent_users.length ? (
            <span className="text-xs">
              {row.original.agent_users.map((u) => (
                <span key={u.agent_user_id} className="block">
                  brand {u.brand_id}: {spendLine(u)}
                </span>
              ))}
            </span>
          ) : (
            'nothing (no brand)'
          ),
      },
      {
        header: 'Last used',
        cell: ({ row }) => (row.original.last_used_at ? formatRelative(row.original.last_used_at) : 'never'),
      },
      {
        header: 'Status',
        cell: ({ row }) => (
          <Badge tone={row.original.status === 'active' ? 'success' : 'neutral'}>{row.original.status}</Badge>
        ),
      },
      { header: 'Expires', cell: ({ row }) => formatDateTime(row.original.expires_at) },
      {
        id: 'actions',
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row }) => (
          <Button
            variant="outline"
            size="sm"
            aria-label={`Manage ${row.original.project_name} (${row.original.token_prefix})`}
            onClick={() => setManaging(row.original.token_id)}
          >
            Manage
          </Button>
        ),
      },
    ],
    [showClient],
  );

  return (
    <section aria-labelledby="tokens-heading" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="tokens-heading" className="text-lg font-semibold">
          Agent tokens
        </h2>
        <ApiCallButton
          call={{ operationId: 'listAccessTokens', method: 'GET', path: '/api/v1/auth/pat/agents', query }}
        />
      </div>
      <p className="text-sm text-muted-foreground">
        {role === 'super_admin'
          ? acting
            ? 'The tokens of the client you act for.'
            : 'Every client’s tokens; choose a client (“Acting for”) to see one client’s.'
          : 'The agent tokens acting for the brands you administer, with their limits in each brand and what they spent this month.'}
      </p>
      <div className="flex items-center gap-2">
        <Checkbox
          id="agents-inactive"
          checked={inactive}
          onCheckedChange={(v) => onView({ inactive: v === true || undefined, tokens_page: undefined })}
        />
        <Label htmlFor="agents-inactive">Include revoked and expired tokens</Label>
      </div>
      <DataTable
        label="Agent tokens"
        columns={columns}
        data={list.data?.agents ?? []}
        getRowId={(t) => t.token_id}
        isLoading={list.isLoading}
        error={list.error}
        retry={() => void list.refetch()}
        height="min(50vh, 32rem)"
        empty={
          <Empty title="No agent tokens">
            {role === 'super_admin'
              ? 'An approved access request becomes a token here.'
              : 'None acts for a brand you administer. Agents ask for a token; an administrator approves it.'}
          </Empty>
        }
        footer={
          list.data && (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={list.data.total}
              onPage={(to) => onView({ tokens_page: to > 1 ? to : undefined })}
            />
          )
        }
      />
      <Dialog open={token !== null} onOpenChange={(open) => !open && setManaging(null)}>
        {token && (
          <ManageDialog key={token.token_id} token={token} close={() => setManaging(null)} regenerated={setSecret} />
        )}
      </Dialog>
      <Dialog open={secret !== null} onOpenChange={(open) => !open && setSecret(null)}>
        {secret && (
          <DialogContent title="The agent’s new token" description="Store it now: it will not be shown again.">
            <Warning>
              This is the only time the token is shown; the old one has stopped. Give it to the agent before you close
              this dialog; nothing of it is kept in this browser.
            </Warning>
            <SecretValue label="New agent token" value={secret.access_token} />
            <p className="text-sm text-muted-foreground">Expires {formatDateTime(secret.expires_at)}.</p>
            <div className="flex justify-end">
              <DialogClose asChild>
                <Button>I have stored it</Button>
              </DialogClose>
            </div>
          </DialogContent>
        )}
      </Dialog>
    </section>
  );
}
