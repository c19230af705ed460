import { useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Plus } from 'lucide-react';
import { toast } from 'sonner';
import { api, selectedClient, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { meQuery } from '@/api/session';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Pager } from '@/components/pager';
import { Empty, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Dialog, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import { Field, Input, NativeSelect } from '@/components/ui/input';
import { formatDateTime } from '@/lib/format';
import type { components } from '@contract';
import { brandsRoute } from './routes';

type Brand = components['schemas']['Brand'];

const PAGE_SIZE = 20;

/** Every client by name, for a super_admin (the brands' client column and the new brand's client). */
export const clientNamesQuery = {
  queryKey: ['admin-clients'],
  queryFn: () => unwrap(api.GET('/api/v1/dashboard/admin/clients', { params: { query: { page_size: 100 } } })),
};

const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 100);

/**
 * A new brand: its name and slug, and for a super_admin the client it belongs to (X-Selected-Client-Id, the one
 * acted for unless another is chosen). The creator becomes its owner.
 */
function CreateBrand({ superAdmin }: { superAdmin: boolean }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [client, setClient] = useState(selectedClient() ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const clients = useQuery({ ...clientNamesQuery, enabled: superAdmin && open });
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const effectiveSlug = slugEdited ? slug : slugOf(name);
  const body = { brand_name: name.trim(), slug: effectiveSlug };
  const headers = superAdmin && client ? { 'X-Selected-Client-Id': client } : undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!body.brand_name) found.name = 'Give the brand a name';
    if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(body.slug))
      found.slug = 'Lower-case letters and digits, words joined by single hyphens';
    if (superAdmin && !client) found.client = 'Choose the client the brand belongs to';
    setErrors(found);
    if (Object.keys(found).length) return;
    setSaving(true);
    try {
      const brand = await unwrap(api.POST('/api/v1/brands', { body, params: headers ? { header: headers } : {} }));
      toast.success(`Brand created: ${brand.brand_name}`);
      void queryClient.invalidateQueries({ queryKey: ['brands'] });
      setOpen(false);
      void navigate({ to: '/brands/$brandId', params: { brandId: String(brand.brand_id) } });
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        // The client acted for when the dialog opens (the switcher may have changed since the page was drawn).
        if (next) setClient(selectedClient() ?? '');
        setOpen(next);
      }}
    >
      <DialogTrigger asChild>
        <Button>
          <Plus aria-hidden /> New brand
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Create a brand"
        description="You become its owner; its administrators are added under Members."
      >
        <form onSubmit={(e) => void submit(e)} noValidate className="flex flex-col gap-3">
          {superAdmin && (
            <Field id="brand-client" label="Client" error={errors.client}>
              <NativeSelect
                id="brand-client"
                value={client}
                aria-invalid={Boolean(errors.client)}
                aria-describedby={errors.client ? 'brand-client-error' : undefined}
                onChange={(e) => setClient(e.target.value)}
              >
                <option value="">{clients.isPending ? 'Loading clients…' : 'Choose a client'}</option>
                {clients.data?.clients.map((c) => (
                  <option key={c.client_id} value={c.client_id}>
                    {c.name}
                  </option>
                ))}
              </NativeSelect>
            </Field>
          )}
          <Field id="brand-name" label="Brand name" error={errors.name}>
            <Input
              id="brand-name"
              value={name}
              maxLength={200}
              aria-invalid={Boolean(errors.name)}
              aria-describedby={errors.name ? 'brand-name-error' : undefined}
              onChange={(e) => setName(e.target.value)}
            />
          </Field>
          <Field
            id="brand-slug"
            label="Slug"
            hint="Its short name in addresses; unique within the client."
            error={errors.slug}
          >
            <Input
              id="brand-slug"
              value={effectiveSlug}
              maxLength={100}
              aria-invalid={Boolean(errors.slug)}
              aria-describedby={`brand-slug-hint${errors.slug ? ' brand-slug-error' : ''}`}
              onChange={(e) => {
                setSlugEdited(true);
                setSlug(e.target.value);
              }}
            />
          </Field>
          <div className="flex flex-wrap items-center justify-end gap-2">
            <ApiCallButton
              call={{ operationId: 'createBrand', method: 'POST', path: '/api/v1/brands', body, headers }}
            />
            <Button type="submit" disabled={saving}>
              {saving ? 'Creating…' : 'Create brand'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/**
 * The brands the administrator manages: a brand admin their own (their role in each), a super admin every
 * client's (or the acted-for client's), each with its client named.
 */
export function BrandsPage() {
  const me = useQuery(meQuery).data!;
  const superAdmin = me.role === 'super_admin';
  const search = brandsRoute.useSearch();
  const navigate = useNavigate({ from: brandsRoute.fullPath });
  const page = search.page ?? 1;
  const brands = useQuery({
    queryKey: ['brands', 'list', page, selectedClient()],
    queryFn: () => unwrap(api.GET('/api/v1/brands', { params: { query: { page, page_size: PAGE_SIZE } } })),
  });
  const clients = useQuery({ ...clientNamesQuery, enabled: superAdmin });
  const clientName = useMemo(
    () => new Map(clients.data?.clients.map((c) => [c.client_id, c.name]) ?? []),
    [clients.data],
  );
  const columns = useMemo<ColumnDef<Brand>[]>(
    () => [
      {
        header: 'Brand',
        cell: ({ row }) => (
          <Link
            to="/brands/$brandId"
            params={{ brandId: String(row.original.brand_id) }}
            className="font-medium text-primary underline-offset-4 hover:underline"
          >
            {row.original.brand_name}
          </Link>
        ),
      },
      { header: 'Slug', accessorKey: 'slug' },
      ...(superAdmin
        ? [
            {
              id: 'client',
              header: 'Client',
              cell: ({ row }: { row: { original: Brand } }) =>
                row.original.client_id ? (clientName.get(row.original.client_id) ?? row.original.client_id) : '—',
            } satisfies ColumnDef<Brand>,
          ]
        : [{ header: 'Your role', accessorKey: 'role' } satisfies ColumnDef<Brand>]),
      {
        header: 'State',
        cell: ({ row }) =>
          row.original.is_active ? <Badge tone="success">Active</Badge> : <Badge tone="warning">Inactive</Badge>,
      },
      { header: 'Subscription', accessorKey: 'subscription_status' },
      { header: 'Created', cell: ({ row }) => formatDateTime(row.original.created_at) },
    ],
    [superAdmin, clientName],
  );
  return (
    <>
      <PageHeader
        title="Brands"
        description={
          superAdmin
            ? selectedClient()
              ? 'The brands of the client you act for (choose "No client chosen" to see every client\'s).'
              : "Every client's brands."
            : 'The brands you belong to, with your role in each.'
        }
        actions={
          <>
            <ApiCallButton
              label="List"
              call={{
                operationId: 'listBrands',
                method: 'GET',
                path: '/api/v1/brands',
                query: { page, page_size: PAGE_SIZE },
              }}
            />
            <CreateBrand superAdmin={superAdmin} />
          </>
        }
      />
      <DataTable
        label="Brands"
        columns={columns}
        data={brands.data?.brands ?? []}
        getRowId={(b) => String(b.brand_id)}
        isLoading={brands.isPending}
        error={brands.error}
        retry={() => void brands.refetch()}
        empty={<Empty title="No brands yet">Create one with "New brand".</Empty>}
        footer={
          brands.data && brands.data.total > PAGE_SIZE ? (
            <Pager
              page={page}
              pageSize={PAGE_SIZE}
              total={brands.data.total}
              onPage={(p) => void navigate({ search: (prev) => ({ ...prev, page: p }) })}
            />
          ) : undefined
        }
      />
    </>
  );
}
