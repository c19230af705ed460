import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Search } from 'lucide-react';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Pager } from '@/components/pager';
import { Empty, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Input, Label, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatNumber } from '@/lib/format';
import { CreateUserDialog } from './create-user';
import { clientsQuery, PAGE_SIZE, ROLE_LABELS, usersListQuery, type DashboardUser, type Role } from './queries';
import { usersRoute } from './routes';
import { UserPanel } from './user-panel';

export function UsersPage() {
  const search = usersRoute.useSearch();
  const navigate = useNavigate({ from: usersRoute.fullPath });
  const page = search.page ?? 1;
  const list = useQuery(usersListQuery({ role: search.role, search: search.search, page }));
  const clients = useQuery(clientsQuery);
  const clientName = useMemo(() => {
    const names = new Map(clients.data?.clients.map((c) => [c.client_id, c.name]));
    return (id: string | null) => (id ? (names.get(id) ?? id) : '—');
  }, [clients.data]);
  const [text, setText] = useState(search.search ?? '');

  const setSearch = (next: Partial<typeof search>) => void navigate({ search: (prev) => ({ ...prev, ...next }) });
  const openUser = (user: DashboardUser) => setSearch({ user: user.user_id });

  const columns = useMemo<ColumnDef<DashboardUser>[]>(
    () => [
      {
        header: 'E-mail',
        cell: ({ row }) => (
          <button
            type="button"
            className="font-medium text-primary underline-offset-4 hover:underline"
            onClick={(e) => {
              e.stopPropagation();
              openUser(row.original);
            }}
          >
            {row.original.email}
          </button>
        ),
      },
      { header: 'Role', cell: ({ row }) => ROLE_LABELS[row.original.role] },
      { header: 'Client', cell: ({ row }) => clientName(row.original.client_id) },
      { header: 'Brands', cell: ({ row }) => formatNumber(row.original.brands.length) },
      {
        header: 'State',
        cell: ({ row }) =>
          row.original.is_active ? <Badge tone="success">Active</Badge> : <Badge tone="warning">Deactivated</Badge>,
      },
      { header: 'Created', cell: ({ row }) => formatDateTime(row.original.created_at) },
    ],
    // openUser only navigates; the column set changes with the client names.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [clientName],
  );

  const submitSearch = (e: FormEvent) => {
    e.preventDefault();
    setSearch({ search: text.trim() || undefined, page: undefined });
  };
  // The panel shows the user as this page of the list has them (the API has no read of one user).
  const open = search.user ? list.data?.users.find((u) => u.user_id === search.user) : undefined;

  return (
    <>
      <PageHeader
        title="Users"
        description="Dashboard logins of every client: their role, client, brands and access."
        actions={
          <>
            <ApiCallButton
              call={{
                operationId: 'listDashboardUsers',
                method: 'GET',
                path: '/api/v1/dashboard/users',
                query: { role: search.role, search: search.search, page, page_size: PAGE_SIZE },
              }}
            />
            <CreateUserDialog
              onCreated={(user) => {
                // The list narrows to the new user, so the panel opens on them whatever the filters were.
                setText(user.email);
                setSearch({ search: user.email, role: undefined, page: undefined, user: user.user_id });
              }}
            />
          </>
        }
      />
      <div className="mb-3 flex flex-wrap items-end gap-3">
        <div className="flex flex-col gap-1">
          <Label htmlFor="users-role">Role</Label>
          <NativeSelect
            id="users-role"
            className="w-44"
            value={search.role ?? ''}
            onChange={(e) => setSearch({ role: (e.target.value || undefined) as Role | undefined, page: undefined })}
          >
            <option value="">All roles</option>
            {Object.entries(ROLE_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </NativeSelect>
        </div>
        <form role="search" aria-label="Users" onSubmit={submitSearch} className="flex items-end gap-2">
          <div className="flex flex-col gap-1">
            <Label htmlFor="users-search">E-mail contains</Label>
            <Input
              id="users-search"
              type="search"
              className="w-56"
              value={text}
              maxLength={200}
              onChange={(e) => setText(e.target.value)}
            />
          </div>
          <Button type="submit" variant="outline">
            <Search aria-hidden /> Search
          </Button>
        </form>
      </div>
      <DataTable
        label="Users"
        columns={columns}
        data={list.data?.users ?? []}
        getRowId={(u) => u.user_id}
        isLoading={list.isLoading}
        error={list.error}
        retry={() => void list.refetch()}
        onRowClick={openUser}
        empty={
          <Empty title={search.role || search.search ? 'No user matches these filters' : 'No users yet'}>
            Create one with &ldquo;New user&rdquo;.
          </Empty>
        }
        footer={
          list.data && (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={list.data.total}
              onPage={(p) => setSearch({ page: p > 1 ? p : undefined })}
            />
          )
        }
      />
      {open && <UserPanel user={open} clientName={clientName} onClose={() => setSearch({ user: undefined })} />}
    </>
  );
}
