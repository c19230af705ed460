import { useState, type ReactNode } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Eye, EyeOff, KeyRound, RefreshCw } from 'lucide-react';
import { toast } from 'sonner';
import { api, selectedClient, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { meQuery, type Role } from '@/api/session';
import { ApiCallButton } from '@/components/api-call-button';
import { PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog, DialogClose, DialogContent } from '@/components/ui/dialog';
import { formatDateTime, formatRelative } from '@/lib/format';
import type { components } from '@contract';
import { credentialsRoute } from './routes';
import { SecretValue } from '@/components/secret-value';
import { Warning } from '@/components/warning';
import { TokensSection } from '@/pages/agents/tokens-section';

type Credentials = components['schemas']['ClientCredentials'];
type WebhookSecret = components['schemas']['WebhookSecret'];

/** The roles of each operation, as its x-roles in openapi.yaml lists them. */
const REGENERATE_ROLES: Role[] = ['brand_admin', 'client_user'];
const WEBHOOK_SECRET_ROLES: Role[] = ['super_admin', 'brand_admin', 'client_user'];

/**
 * The client a super_admin acts for, re-read whenever the "Acting for" switcher changes it: the switcher
 * invalidates every query but who is signed in, this one included, so the page redraws with the new choice.
 */
function useSelectedClient(): string | null {
  return (
    useQuery({ queryKey: ['selected-client'], queryFn: () => selectedClient() ?? '', staleTime: Infinity }).data ||
    selectedClient()
  );
}

function Section({
  id,
  title,
  children,
  actions,
}: {
  id: string;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Card className="flex flex-col gap-3" aria-labelledby={id} role="region">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={id} className="text-lg font-semibold">
          {title}
        </h2>
        {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
      </div>
      {children}
    </Card>
  );
}

/**
 * A new api_key and api_secret for the caller's own client: a confirmation first (the old pair stops at once),
 * then the new triple shown once. The answer lives in this component's state only (the mutation keeps nothing:
 * its function returns nothing), and is dropped when the dialog closes.
 */
function RegenerateCredentials({ role }: { role: Role }) {
  const [open, setOpen] = useState(false);
  const [shown, setShown] = useState<Credentials | null>(null);
  const regenerate = useMutation({
    mutationFn: async () => {
      setShown(await unwrap(api.POST('/api/v1/dashboard/credentials/regenerate')));
    },
    gcTime: 0,
    onError: (error) => toast.error(describeError(error)),
  });
  const close = (next: boolean) => {
    setOpen(next);
    if (!next) {
      setShown(null);
      regenerate.reset();
    }
  };
  const allowed = REGENERATE_ROLES.includes(role);
  return (
    <Section
      id="credentials-heading"
      title="API credentials"
      actions={
        <ApiCallButton
          call={{
            operationId: 'regenerateCredentials',
            method: 'POST',
            path: '/api/v1/dashboard/credentials/regenerate',
          }}
        />
      }
    >
      <p className="text-sm text-muted-foreground">
        The client's credential triple (<code>client_id:api_key:api_secret</code>) lets scripts and the CLI act as the
        client in every brand. Its secret is never shown again after it is made; if it is lost or leaked, make a new
        one.
      </p>
      {allowed ? (
        <div>
          <Button variant="destructive" onClick={() => setOpen(true)}>
            <RefreshCw aria-hidden /> Regenerate credentials
          </Button>
        </div>
      ) : (
        <p className="text-sm">
          A super admin has no client of its own: the client's brand admin or client user regenerates its credentials.
        </p>
      )}
      <Dialog open={open} onOpenChange={close}>
        {shown ? (
          <DialogContent title="Your new credentials" description="Store them now: they will not be shown again.">
            <Warning>
              This is the only time the secret is shown. Copy the triple into your secret store before you close this
              dialog; nothing of it is kept in this browser.
            </Warning>
            <SecretValue label="Credential triple" value={`${shown.client_id}:${shown.api_key}:${shown.api_secret}`} />
            <dl className="grid gap-1 text-sm">
              <div className="flex gap-2">
                <dt className="text-muted-foreground">API key</dt>
                <dd className="break-all font-mono text-xs">{shown.api_key}</dd>
              </div>
              {shown.regenerated_at && (
                <div className="flex gap-2">
                  <dt className="text-muted-foreground">Made</dt>
                  <dd>{formatDateTime(shown.regenerated_at)}</dd>
                </div>
              )}
            </dl>
            <div className="flex justify-end">
              <DialogClose asChild>
                <Button>I have stored them</Button>
              </DialogClose>
            </div>
          </DialogContent>
        ) : (
          <DialogContent
            title="Regenerate the credentials?"
            description="A new api_key and api_secret are made for the client."
          >
            <Warning>
              The current triple stops working at once: every script, CLI and integration using it is refused until it
              has the new one. The client's administrator is e-mailed about it.
            </Warning>
            <div className="flex justify-end gap-2">
              <DialogClose asChild>
                <Button variant="outline">Cancel</Button>
              </DialogClose>
              <Button variant="destructive" onClick={() => regenerate.mutate()} disabled={regenerate.isPending}>
                {regenerate.isPending ? 'Regenerating…' : 'Regenerate now'}
              </Button>
            </div>
          </DialogContent>
        )}
      </Dialog>
    </Section>
  );
}

/**
 * The webhook signing secret: readable again at any time (the contract keeps it), so it is fetched only when asked
 * for and held in this component's state, never in the query cache; a rotation shows the new one and until when
 * the old one still signs.
 */
function WebhookSecretSection({ role }: { role: Role }) {
  const [secret, setSecret] = useState<WebhookSecret | null>(null);
  const [confirm, setConfirm] = useState(false);
  const [rotated, setRotated] = useState(false);
  const reveal = useMutation({
    mutationFn: async () => {
      setSecret(await unwrap(api.GET('/api/v1/dashboard/webhook-secret')));
    },
    gcTime: 0,
    onError: (error) => toast.error(describeError(error)),
  });
  const rotate = useMutation({
    mutationFn: async () => {
      setSecret(await unwrap(api.POST('/api/v1/dashboard/webhook-secret/rotate')));
    },
    gcTime: 0,
    onSuccess: () => {
      setRotated(true);
      setConfirm(false);
      toast.success('A new webhook secret signs the deliveries from now on');
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const allowed = WEBHOOK_SECRET_ROLES.includes(role);
  const acting = useSelectedClient();
  const headers = role === 'super_admin' && acting ? { 'X-Selected-Client-Id': acting } : undefined;
  return (
    <Section
      id="webhook-heading"
      title="Webhook signing secret"
      actions={
        <>
          <ApiCallButton
            label="Read"
            call={{ operationId: 'getWebhookSecret', method: 'GET', path: '/api/v1/dashboard/webhook-secret', headers }}
          />
          <ApiCallButton
            label="Rotate"
            call={{
              operationId: 'rotateWebhookSecret',
              method: 'POST',
              path: '/api/v1/dashboard/webhook-secret/rotate',
              headers,
            }}
          />
        </>
      }
    >
      <p className="text-sm text-muted-foreground">
        Every delivery to your webhook URLs is signed with it (Standard Webhooks: <code>webhook-signature</code>). After
        a rotation the replaced secret keeps signing beside the new one for a while, so receivers can switch without
        losing a delivery.
      </p>
      {!allowed ? (
        <p className="text-sm">The client's users and a super admin acting for it manage its webhook secret.</p>
      ) : (
        <>
          <div className="flex flex-wrap gap-2">
            {secret ? (
              <Button variant="outline" onClick={() => (setSecret(null), setRotated(false))}>
                <EyeOff aria-hidden /> Hide the secret
              </Button>
            ) : (
              <Button variant="outline" onClick={() => reveal.mutate()} disabled={reveal.isPending}>
                <Eye aria-hidden /> Show the secret
              </Button>
            )}
            <Button variant="destructive" onClick={() => setConfirm(true)}>
              <RefreshCw aria-hidden /> Rotate
            </Button>
          </div>
          {secret && (
            <div className="flex flex-col gap-2" aria-live="polite">
              {rotated && (
                <Warning>The new secret signs every delivery from now on. Give it to your receivers.</Warning>
              )}
              <SecretValue label="Webhook secret" value={secret.secret} />
              <p className="text-sm text-muted-foreground">
                Made {formatDateTime(secret.created_at)}.{' '}
                {secret.previous_expires_at
                  ? `The replaced secret still signs beside it until ${formatDateTime(secret.previous_expires_at)} (${formatRelative(secret.previous_expires_at)}).`
                  : 'No replaced secret signs beside it.'}
              </p>
            </div>
          )}
        </>
      )}
      <Dialog open={confirm} onOpenChange={setConfirm}>
        <DialogContent title="Rotate the webhook secret?" description="A new secret is made and shown here.">
          <Warning>
            The current secret keeps signing beside the new one for an overlap (24 hours by default), then stops.
            Rotating again within the overlap drops the oldest secret at once.
          </Warning>
          <div className="flex justify-end gap-2">
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <Button variant="destructive" onClick={() => rotate.mutate()} disabled={rotate.isPending}>
              {rotate.isPending ? 'Rotating…' : 'Rotate now'}
            </Button>
          </div>
        </DialogContent>
      </Dialog>
    </Section>
  );
}

export function CredentialsPage() {
  const role = useQuery(meQuery).data!.role;
  const search = credentialsRoute.useSearch();
  const navigate = useNavigate({ from: credentialsRoute.fullPath });
  return (
    <>
      <PageHeader
        title="Credentials"
        description={
          <span className="inline-flex items-center gap-1">
            <KeyRound className="size-4" aria-hidden /> The client's API credentials, webhook secret and agent tokens.
          </span>
        }
      />
      <div className="flex flex-col gap-4">
        <RegenerateCredentials role={role} />
        <WebhookSecretSection role={role} />
        <Card>
          <TokensSection
            role={role}
            view={search}
            onView={(change) => void navigate({ search: (prev) => ({ ...prev, ...change }) })}
          />
        </Card>
      </div>
    </>
  );
}
