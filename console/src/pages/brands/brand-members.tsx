import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Trash2, UserPlus } from 'lucide-react';
import { toast } from 'sonner';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { meQuery } from '@/api/session';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Pager } from '@/components/pager';
import { Empty } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Dialog, DialogClose, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import { Field, Input, NativeSelect } from '@/components/ui/input';
import { formatDateTime } from '@/lib/format';
import type { components } from '@contract';
import { brandRoute } from './routes';
import { canManage, Section, type Brand } from './shared';

type Member = components['schemas']['Member'];
type MemberRole = Member['role'];

const PAGE_SIZE = 20;
const ROLES: { value: MemberRole; label: string }[] = [
  { value: 'owner', label: 'Owner' },
  { value: 'admin', label: 'Admin' },
  { value: 'member', label: 'Member' },
];
/** Only an owner (or a super admin) hands out or takes away the owner role: the API's rule, shown before a click. */
const ownerLevel = (brand: Brand, superAdmin: boolean) => superAdmin || brand.role === 'owner';

function AddMember({ brand, superAdmin }: { brand: Brand; superAdmin: boolean }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('member');
  const [error, setError] = useState<string | undefined>();
  const queryClient = useQueryClient();
  const path = '/api/v1/brands/{brand_id}/members' as const;
  const body = { email: email.trim(), role };
  const add = useMutation({
    mutationFn: () => unwrap(api.POST(path, { params: { path: { brand_id: brand.brand_id } }, body })),
    onSuccess: (m) => {
      toast.success(`${m.email} added as ${m.role}`);
      void queryClient.invalidateQueries({ queryKey: ['brands', 'members', brand.brand_id] });
      setOpen(false);
      setEmail('');
    },
    onError: (e) => toast.error(describeError(e)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(body.email))
      return setError('The e-mail address of a user of the client');
    setError(undefined);
    add.mutate();
  };
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button>
          <UserPlus aria-hidden /> Add member
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Add a member"
        description="A console user of the brand's client, by e-mail address; they can use the brand at once."
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3">
          <Field id="member-email" label="E-mail address" error={error}>
            <Input
              id="member-email"
              type="email"
              value={email}
              aria-invalid={Boolean(error)}
              aria-describedby={error ? 'member-email-error' : undefined}
              onChange={(e) => setEmail(e.target.value)}
            />
          </Field>
          <Field id="member-role" label="Role in the brand">
            <NativeSelect id="member-role" value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
              {ROLES.filter((r) => r.value !== 'owner' || ownerLevel(brand, superAdmin)).map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <div className="flex flex-wrap items-center justify-end gap-2">
            <ApiCallButton
              call={{
                operationId: 'addBrandMember',
                method: 'POST',
                path,
                pathParams: { brand_id: brand.brand_id },
                body,
              }}
            />
            <Button type="submit" disabled={add.isPending}>
              {add.isPending ? 'Adding…' : 'Add member'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}

function RoleSelect({ brand, member, superAdmin }: { brand: Brand; member: Member; superAdmin: boolean }) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (role: MemberRole) =>
      unwrap(
        api.PATCH('/api/v1/brands/{brand_id}/members/{user_id}', {
          params: { path: { brand_id: brand.brand_id, user_id: member.user_id } },
          body: { role },
        }),
      ),
    onSuccess: (m) => toast.success(`${m.email} is now ${m.role}`),
    onError: (e) => toast.error(describeError(e)),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['brands', 'members', brand.brand_id] }),
  });
  const mayTouchOwner = ownerLevel(brand, superAdmin);
  const editable = canManage(brand) && (member.role !== 'owner' || mayTouchOwner);
  if (!editable) return <span className="capitalize">{member.role}</span>;
  return (
    <NativeSelect
      aria-label={`Role of ${member.email}`}
      value={member.role}
      disabled={change.isPending}
      className="w-32"
      onChange={(e) => change.mutate(e.target.value as MemberRole)}
    >
      {ROLES.filter((r) => r.value !== 'owner' || mayTouchOwner).map((r) => (
        <option key={r.value} value={r.value}>
          {r.label}
        </option>
      ))}
    </NativeSelect>
  );
}

function RemoveMember({ brand, member }: { brand: Brand; member: Member }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/api/v1/brands/{brand_id}/members/{user_id}', {
          params: { path: { brand_id: brand.brand_id, user_id: member.user_id } },
        }),
      ),
    onSuccess: () => {
      toast.success(`${member.email} removed from the brand`);
      void queryClient.invalidateQueries({ queryKey: ['brands', 'members', brand.brand_id] });
    },
    onError: (e) => toast.error(describeError(e)),
  });
  return (
    <Dialog>
      <DialogTrigger asChild>
        <Button variant="ghost" size="sm" aria-label={`Remove ${member.email}`}>
          <Trash2 aria-hidden /> Remove
        </Button>
      </DialogTrigger>
      <DialogContent
        title={`Remove ${member.email}?`}
        description="They lose access to this brand at once; their other brands are untouched."
      >
        <div className="flex flex-wrap items-center justify-end gap-2">
          <ApiCallButton
            call={{
              operationId: 'removeBrandMember',
              method: 'DELETE',
              path: '/api/v1/brands/{brand_id}/members/{user_id}',
              pathParams: { brand_id: brand.brand_id, user_id: member.user_id },
            }}
          />
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <DialogClose asChild>
            <Button variant="destructive" onClick={() => remove.mutate()}>
              Remove member
            </Button>
          </DialogClose>
        </div>
      </DialogContent>
    </Dialog>
  );
}

/** The brand's members with their roles: add one, change a role, remove one (owners and admins). */
export function BrandMembersTab({ brand }: { brand: Brand }) {
  const isSuper = useQuery(meQuery).data?.role === 'super_admin';
  const search = brandRoute.useSearch();
  const navigate = useNavigate({ from: brandRoute.fullPath });
  const page = search.members_page ?? 1;
  const members = useQuery({
    queryKey: ['brands', 'members', brand.brand_id, page],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/brands/{brand_id}/members', {
          params: { path: { brand_id: brand.brand_id }, query: { page, page_size: PAGE_SIZE } },
        }),
      ),
  });
  const manage = canManage(brand);
  const columns = useMemo<ColumnDef<Member>[]>(
    () => [
      { header: 'E-mail', accessorKey: 'email' },
      {
        header: 'Role',
        cell: ({ row }) => <RoleSelect brand={brand} member={row.original} superAdmin={isSuper} />,
      },
      { header: 'Member since', cell: ({ row }) => formatDateTime(row.original.created_at) },
      ...(manage
        ? [
            {
              id: 'actions',
              header: 'Actions',
              cell: ({ row }: { row: { original: Member } }) =>
                row.original.role !== 'owner' || ownerLevel(brand, isSuper) ? (
                  <RemoveMember brand={brand} member={row.original} />
                ) : null,
            } satisfies ColumnDef<Member>,
          ]
        : []),
    ],
    [brand, isSuper, manage],
  );
  return (
    <Section
      id="brand-members"
      title="Members"
      description="Owners and admins manage the brand; members use it. A brand always keeps one owner."
      actions={
        <>
          <ApiCallButton
            label="List"
            call={{
              operationId: 'listBrandMembers',
              method: 'GET',
              path: '/api/v1/brands/{brand_id}/members',
              pathParams: { brand_id: brand.brand_id },
              query: { page, page_size: PAGE_SIZE },
            }}
          />
          {manage && <AddMember brand={brand} superAdmin={isSuper} />}
        </>
      }
    >
      <DataTable
        label="Members"
        columns={columns}
        data={members.data?.members ?? []}
        getRowId={(m) => m.user_id}
        isLoading={members.isPending}
        error={members.error}
        retry={() => void members.refetch()}
        height="28rem"
        empty={<Empty title="No members yet" />}
        footer={
          members.data && members.data.total > PAGE_SIZE ? (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={members.data.total}
              onPage={(p) => void navigate({ search: (prev) => ({ ...prev, members_page: p }) })}
            />
          ) : undefined
        }
      />
    </Section>
  );
}
