import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { KeyRound, Mail, Trash2, UserCheck, UserX, Wand2 } from 'lucide-react';
import { toast } from 'sonner';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { meQuery } from '@/api/session';
import { ApiCallButton } from '@/components/api-call-button';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import { Dialog, DialogClose, DialogContent } from '@/components/ui/dialog';
import { Field, Input, Label, NativeSelect } from '@/components/ui/input';
import { SecretValue } from '@/components/secret-value';
import { formatDateTime } from '@/lib/format';
import { parsePermissions } from './create-user';
import { brandsQuery, clientsQuery, ROLE_LABELS, type DashboardUser, type Role } from './queries';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="flex flex-col gap-3 border-t border-border pt-4">
      <h3 className="font-semibold">{title}</h3>
      {children}
    </section>
  );
}

const userPath = '/api/v1/dashboard/users/{user_id}';

/** Role, client and permissions (updateDashboardUser); a super_admin's own role is not theirs to change here. */
function AccountForm({ user, self }: { user: DashboardUser; self: boolean }) {
  const queryClient = useQueryClient();
  const clients = useQuery(clientsQuery);
  const [role, setRole] = useState<Role>(user.role);
  const [clientId, setClientId] = useState(user.client_id ?? '');
  const [permissions, setPermissions] = useState(user.permissions.join(', '));
  const body = {
    ...(self ? {} : { role }),
    client_id: role === 'super_admin' ? null : clientId || null,
    permissions: parsePermissions(permissions),
  };
  const save = useMutation({
    mutationFn: () => unwrap(api.PATCH(userPath, { params: { path: { user_id: user.user_id } }, body })),
    onSuccess: (updated) => {
      toast.success(`Saved: ${updated.email} is a ${ROLE_LABELS[updated.role].toLowerCase()}`);
      void queryClient.invalidateQueries({ queryKey: ['users'] });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (role !== 'super_admin' && !clientId) return void toast.error('Choose the client this user belongs to');
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-3">
      {!self && (
        <Field id="user-role" label="Role">
          <NativeSelect id="user-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {Object.entries(ROLE_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </NativeSelect>
        </Field>
      )}
      {role !== 'super_admin' && (
        <Field
          id="user-client"
          label="Client"
          hint="Moving a user to another client drops their brand memberships and pauses their watches there."
        >
          <NativeSelect
            id="user-client"
            aria-describedby="user-client-hint"
            value={clientId}
            onChange={(e) => setClientId(e.target.value)}
          >
            <option value="">Choose a client</option>
            {clients.data?.clients.map((c) => (
              <option key={c.client_id} value={c.client_id}>
                {c.name}
              </option>
            ))}
          </NativeSelect>
        </Field>
      )}
      <Field id="user-permissions" label="Permissions" hint="Separated by commas; replaces the whole list.">
        <Input
          id="user-permissions"
          aria-describedby="user-permissions-hint"
          value={permissions}
          onChange={(e) => setPermissions(e.target.value)}
        />
      </Field>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={save.isPending}>
          Save changes
        </Button>
        <ApiCallButton
          call={{
            operationId: 'updateDashboardUser',
            method: 'PATCH',
            path: userPath,
            pathParams: { user_id: user.user_id },
            body,
          }}
        />
      </div>
    </form>
  );
}

/** Deactivate (the user's sessions end at once) or make active again. */
function ActiveToggle({ user }: { user: DashboardUser }) {
  const queryClient = useQueryClient();
  const body = { is_active: !user.is_active };
  const toggle = useMutation({
    mutationFn: () => unwrap(api.PATCH(userPath, { params: { path: { user_id: user.user_id } }, body })),
    onSuccess: (updated) => {
      toast.success(updated.is_active ? `${updated.email} is active again` : `${updated.email} is deactivated`);
      void queryClient.invalidateQueries({ queryKey: ['users'] });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Button
        variant={user.is_active ? 'destructive' : 'default'}
        disabled={toggle.isPending}
        onClick={() => toggle.mutate()}
      >
        {user.is_active ? (
          <>
            <UserX aria-hidden /> Deactivate
          </>
        ) : (
          <>
            <UserCheck aria-hidden /> Reactivate
          </>
        )}
      </Button>
      <ApiCallButton
        call={{
          operationId: 'updateDashboardUser',
          method: 'PATCH',
          path: userPath,
          pathParams: { user_id: user.user_id },
          body,
        }}
      />
    </div>
  );
}

/**
 * A generated password (generatePassword) is shown once: it lives in this component's state, never in the query
 * cache, and is gone when the panel closes. Setting a password (setUserPassword) ends the user's other sessions.
 */
function PasswordSection({ user }: { user: DashboardUser }) {
  const [password, setPassword] = useState('');
  const [generated, setGenerated] = useState<string | null>(null);
  const [sendEmail, setSendEmail] = useState(false);
  const [generating, setGenerating] = useState(false);
  const params = { path: { user_id: user.user_id } };
  // Not a query nor a mutation: the answer goes to this component's state only, in no cache of TanStack Query.
  const generate = async () => {
    setGenerating(true);
    try {
      const { password: p } = await unwrap(api.GET('/api/v1/dashboard/users/{user_id}/generate-password', { params }));
      setGenerated(p);
      setPassword(p);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setGenerating(false);
    }
  };
  const set = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/dashboard/users/{user_id}/set-password', {
          params,
          body: { new_password: password, send_email: sendEmail },
        }),
      ),
    onSuccess: (answer) => {
      toast.success(
        answer.email_sent
          ? `Password set; ${user.email} was e-mailed a link to choose their own`
          : `Password set for ${user.email}`,
      );
      setPassword('');
      setGenerated(null);
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (password.length < 10) return void toast.error('A password has at least 10 characters');
    set.mutate();
  };
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap gap-2">
        <Button variant="outline" disabled={generating} onClick={() => void generate()}>
          <Wand2 aria-hidden /> Generate a password
        </Button>
        <ApiCallButton
          call={{
            operationId: 'generatePassword',
            method: 'GET',
            path: '/api/v1/dashboard/users/{user_id}/generate-password',
            pathParams: { user_id: user.user_id },
          }}
        />
      </div>
      {generated && <SecretValue label="Generated password" value={generated} />}
      <form onSubmit={submit} className="flex flex-col gap-3">
        <Field
          id="user-new-password"
          label="New password"
          hint="Ends the user's sessions. The password itself is never e-mailed."
        >
          <Input
            id="user-new-password"
            type="password"
            autoComplete="new-password"
            aria-describedby="user-new-password-hint"
            value={password}
            minLength={10}
            maxLength={200}
            onChange={(e) => {
              setPassword(e.target.value);
              setGenerated(null);
            }}
          />
        </Field>
        <div className="flex items-center gap-2">
          <Checkbox id="user-send-email" checked={sendEmail} onCheckedChange={(v) => setSendEmail(v === true)} />
          <Label htmlFor="user-send-email">E-mail the user a link to choose their own</Label>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={set.isPending}>
            <KeyRound aria-hidden /> Set password
          </Button>
          <ApiCallButton
            call={{
              operationId: 'setUserPassword',
              method: 'POST',
              path: '/api/v1/dashboard/users/{user_id}/set-password',
              pathParams: { user_id: user.user_id },
              body: { new_password: '<password>', send_email: sendEmail },
            }}
          />
        </div>
      </form>
    </div>
  );
}

function ResetEmail({ user }: { user: DashboardUser }) {
  const reset = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/dashboard/users/{user_id}/trigger-reset', { params: { path: { user_id: user.user_id } } }),
      ),
    onSuccess: (answer) =>
      toast.success(`Reset e-mail on its way to ${user.email}`, {
        description: `The link works until ${formatDateTime(answer.reset_expires_at)}.`,
      }),
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <div className="flex flex-wrap gap-2">
      <Button variant="outline" disabled={reset.isPending} onClick={() => reset.mutate()}>
        <Mail aria-hidden /> Send a reset e-mail
      </Button>
      <ApiCallButton
        call={{
          operationId: 'triggerPasswordReset',
          method: 'POST',
          path: '/api/v1/dashboard/users/{user_id}/trigger-reset',
          pathParams: { user_id: user.user_id },
        }}
      />
    </div>
  );
}

/**
 * The user's brand memberships and adding one (addUserToBrand) among the brands of the user's client. The API has no
 * removal or role change from the user's side: that is the brand's members list (Brands).
 */
function BrandMemberships({ user }: { user: DashboardUser }) {
  const queryClient = useQueryClient();
  const brands = useQuery(brandsQuery);
  const names = new Map(brands.data?.brands.map((b) => [b.brand_id, b.brand_name]));
  const candidates = (brands.data?.brands ?? []).filter(
    (b) => b.client_id === user.client_id && !user.brands.some((m) => m.brand_id === b.brand_id),
  );
  const [brandId, setBrandId] = useState('');
  const [role, setRole] = useState<'owner' | 'admin' | 'member'>('member');
  const body = { brand_id: Number(brandId), role };
  const add = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/dashboard/users/{user_id}/brands', { params: { path: { user_id: user.user_id } }, body }),
      ),
    onSuccess: (member) => {
      toast.success(`${member.email} is now ${member.role} of ${names.get(member.brand_id) ?? member.brand_id}`);
      setBrandId('');
      void queryClient.invalidateQueries({ queryKey: ['users'] });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <div className="flex flex-col gap-3">
      {user.brands.length ? (
        <ul className="flex flex-col gap-1 text-sm" aria-label="Brand memberships">
          {user.brands.map((m) => (
            <li key={m.brand_id} className="flex items-center justify-between gap-2">
              <span>{names.get(m.brand_id) ?? `Brand ${m.brand_id}`}</span>
              <Badge>{m.role}</Badge>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-muted-foreground">Not a member of any brand.</p>
      )}
      {user.client_id ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (brandId) add.mutate();
          }}
        >
          <Field id="user-add-brand" label="Add to brand" className="min-w-40 flex-1">
            <NativeSelect id="user-add-brand" value={brandId} onChange={(e) => setBrandId(e.target.value)}>
              <option value="">{candidates.length ? 'Choose a brand' : 'No other brand of this client'}</option>
              {candidates.map((b) => (
                <option key={b.brand_id} value={b.brand_id}>
                  {b.brand_name}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Field id="user-add-brand-role" label="As">
            <NativeSelect
              id="user-add-brand-role"
              value={role}
              onChange={(e) => setRole(e.target.value as typeof role)}
            >
              <option value="member">Member</option>
              <option value="admin">Admin</option>
              <option value="owner">Owner</option>
            </NativeSelect>
          </Field>
          <Button type="submit" disabled={!brandId || add.isPending}>
            Add
          </Button>
          <ApiCallButton
            call={{
              operationId: 'addUserToBrand',
              method: 'POST',
              path: '/api/v1/dashboard/users/{user_id}/brands',
              pathParams: { user_id: user.user_id },
              body,
            }}
          />
        </form>
      ) : (
        <p className="text-sm text-muted-foreground">A super admin belongs to no client, so to no brand.</p>
      )}
      <p className="text-xs text-muted-foreground">
        To remove a membership or change its role, use the brand&apos;s members on the Brands page.
      </p>
    </div>
  );
}

/** Delete (deleteDashboardUser): the login, its sessions and memberships go; confirmed first. */
function DeleteUser({ user, onDeleted }: { user: DashboardUser; onDeleted: () => void }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE(userPath, { params: { path: { user_id: user.user_id } } })),
    onSuccess: () => {
      toast.success(`${user.email} deleted`);
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: ['users'] });
      onDeleted();
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <div className="flex flex-wrap gap-2">
      <Dialog open={confirming} onOpenChange={setConfirming}>
        <Button variant="destructive" onClick={() => setConfirming(true)}>
          <Trash2 aria-hidden /> Delete user
        </Button>
        <DialogContent
          title={`Delete ${user.email}?`}
          description="Their sign-in, sessions and brand memberships are removed and their watches paused."
        >
          <div className="flex justify-end gap-2">
            <DialogClose asChild>
              <Button variant="outline">Keep</Button>
            </DialogClose>
            <Button variant="destructive" disabled={remove.isPending} onClick={() => remove.mutate()}>
              Delete
            </Button>
          </div>
        </DialogContent>
      </Dialog>
      <ApiCallButton
        call={{
          operationId: 'deleteDashboardUser',
          method: 'DELETE',
          path: userPath,
          pathParams: { user_id: user.user_id },
        }}
      />
    </div>
  );
}

/** One user, in a panel beside the list: every action a super_admin takes on a login. */
export function UserPanel({
  user,
  clientName,
  onClose,
}: {
  user: DashboardUser;
  clientName: (id: string | null) => string;
  onClose: () => void;
}) {
  const me = useQuery(meQuery).data;
  const self = me?.user_id === user.user_id;
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent
        side="right"
        title={user.email}
        description={`${ROLE_LABELS[user.role]} · ${clientName(user.client_id)}`}
      >
        <p className="flex flex-wrap items-center gap-2 text-sm">
          {user.is_active ? <Badge tone="success">Active</Badge> : <Badge tone="warning">Deactivated</Badge>}
          <span className="text-muted-foreground">Updated {formatDateTime(user.updated_at)}</span>
          {self && <Badge tone="info">You</Badge>}
        </p>
        <Section title="Role, client and permissions">
          <AccountForm key={user.updated_at} user={user} self={self} />
        </Section>
        {!self && (
          <Section title="Access">
            <p className="text-sm text-muted-foreground">
              {user.is_active
                ? 'Deactivating ends the user’s sessions at once and pauses the watches they created.'
                : 'This user cannot sign in. Reactivated, they sign in again.'}
            </p>
            <ActiveToggle user={user} />
          </Section>
        )}
        <Section title="Password">
          <PasswordSection key={user.user_id} user={user} />
          <ResetEmail user={user} />
        </Section>
        <Section title="Brands">
          <BrandMemberships key={user.user_id} user={user} />
        </Section>
        {!self && (
          <Section title="Delete">
            <DeleteUser user={user} onDeleted={onClose} />
          </Section>
        )}
      </DialogContent>
    </Dialog>
  );
}
