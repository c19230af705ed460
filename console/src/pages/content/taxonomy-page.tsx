import { useState } from 'react';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { toast } from 'sonner';
import { Pencil, Plus, Trash2 } from 'lucide-react';
import { api, unwrap, type components } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Empty, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Dialog, DialogClose, DialogContent } from '@/components/ui/dialog';
import { Input, NativeSelect, Textarea } from '@/components/ui/input';
import type { ApiCall } from '@/lib/api-call';
import { ContentSections, SLUG_PATTERN, contentKeys, described } from './shared';
import { Field } from '@/components/ui/input';
import { Pager } from '@/components/pager';

type Author = components['schemas']['Author'];
type Term = components['schemas']['Tag'];
type Kind = 'authors' | 'tags' | 'categories';
type Row = Author | Term;

const PAGE_SIZE = 20;
const slug = z.union([
  z.literal(''),
  z.string().max(200).regex(SLUG_PATTERN, 'Lower-case letters and digits, words joined by single hyphens'),
]);
const recordForm = z.object({
  name: z.string().trim().min(1, 'A name is needed').max(200),
  slug,
  description: z.string().max(5000),
  email: z.union([z.literal(''), z.email('An e-mail address')]),
  role: z.enum(['author', 'editor', 'contributor', 'administrator']),
});
type RecordForm = z.infer<typeof recordForm>;

const KINDS = {
  authors: { one: 'author', title: 'Authors', id: 'author_id', op: 'Author' },
  tags: { one: 'tag', title: 'Tags', id: 'tag_id', op: 'Tag' },
  categories: { one: 'category', title: 'Categories', id: 'category_id', op: 'Category' },
} as const;

const nameOf = (row: Row) => ('full_name' in row ? row.full_name : row.name);

async function listOf(
  kind: Kind,
  query: { page: number; page_size: number },
): Promise<{ rows: Row[]; total: number; page: number; page_size: number }> {
  const init = { params: { query } };
  if (kind === 'authors') {
    const r = await unwrap(api.GET('/api/v1/dashboard/content/authors', init));
    return { ...r, rows: r.authors };
  }
  if (kind === 'tags') {
    const r = await unwrap(api.GET('/api/v1/dashboard/content/tags', init));
    return { ...r, rows: r.tags };
  }
  const r = await unwrap(api.GET('/api/v1/dashboard/content/categories', init));
  return { ...r, rows: r.categories };
}

/** The body a create or update sends: only the fields the kind has; on an update, emptied fields are cleared. */
function bodyOf(kind: Kind, v: RecordForm, update: boolean) {
  const optional = (value: string) => (value ? value : update ? null : undefined);
  const slugPart = v.slug ? { slug: v.slug } : {};
  if (kind === 'authors')
    return { full_name: v.name, ...slugPart, bio: optional(v.description), email: optional(v.email), role: v.role };
  return { name: v.name, ...slugPart, description: optional(v.description) };
}

async function saveRecord(kind: Kind, v: RecordForm, id: string | null): Promise<Row> {
  if (kind === 'authors') {
    const body = bodyOf(kind, v, Boolean(id)) as { full_name: string; role: RecordForm['role'] };
    return id
      ? unwrap(
          api.PATCH('/api/v1/dashboard/content/authors/{author_id}', { params: { path: { author_id: id } }, body }),
        )
      : unwrap(api.POST('/api/v1/dashboard/content/authors', { body }));
  }
  const body = bodyOf(kind, v, Boolean(id)) as { name: string };
  if (kind === 'tags')
    return id
      ? unwrap(api.PATCH('/api/v1/dashboard/content/tags/{tag_id}', { params: { path: { tag_id: id } }, body }))
      : unwrap(api.POST('/api/v1/dashboard/content/tags', { body }));
  return id
    ? unwrap(
        api.PATCH('/api/v1/dashboard/content/categories/{category_id}', {
          params: { path: { category_id: id } },
          body,
        }),
      )
    : unwrap(api.POST('/api/v1/dashboard/content/categories', { body }));
}

async function deleteRecord(kind: Kind, id: string): Promise<void> {
  if (kind === 'authors')
    await unwrap(api.DELETE('/api/v1/dashboard/content/authors/{author_id}', { params: { path: { author_id: id } } }));
  else if (kind === 'tags')
    await unwrap(api.DELETE('/api/v1/dashboard/content/tags/{tag_id}', { params: { path: { tag_id: id } } }));
  else
    await unwrap(
      api.DELETE('/api/v1/dashboard/content/categories/{category_id}', { params: { path: { category_id: id } } }),
    );
}

function RecordDialog({ kind, record, onClose }: { kind: Kind; record: Row | null; onClose: () => void }) {
  const meta = KINDS[kind];
  const queryClient = useQueryClient();
  const form = useForm<RecordForm>({
    resolver: zodResolver(recordForm),
    defaultValues: {
      name: record ? nameOf(record) : '',
      slug: record?.slug ?? '',
      description: (record && ('bio' in record ? record.bio : record.description)) ?? '',
      email: (record && 'email' in record ? record.email : '') ?? '',
      role: record && 'role' in record ? record.role : 'author',
    },
  });
  const errors = form.formState.errors;
  const save = useMutation({
    mutationFn: (v: RecordForm) => saveRecord(kind, v, record?.id ?? null),
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: ['content', kind] });
      toast.success(`${record ? 'Saved' : 'Created'} “${nameOf(saved)}”`);
      onClose();
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const values = form.watch();
  const call: ApiCall = record
    ? {
        operationId: `update${meta.op}`,
        method: 'PATCH',
        path: `/api/v1/dashboard/content/${kind}/{${meta.id}}`,
        pathParams: { [meta.id]: record.id },
        body: bodyOf(kind, values, true),
      }
    : {
        operationId: `create${meta.op}`,
        method: 'POST',
        path: `/api/v1/dashboard/content/${kind}`,
        body: bodyOf(kind, values, false),
      };
  const id = (field: string) => `${meta.one}-${field}`;
  return (
    <DialogContent title={record ? `Edit the ${meta.one}` : `New ${meta.one}`}>
      <form noValidate className="flex flex-col gap-3" onSubmit={form.handleSubmit((v) => save.mutate(v))}>
        <Field id={id('name')} label={kind === 'authors' ? 'Full name' : 'Name'} error={errors.name?.message}>
          <Input
            id={id('name')}
            autoComplete="off"
            {...form.register('name')}
            {...described(id('name'), errors.name?.message)}
          />
        </Field>
        <Field
          id={id('slug')}
          label="Slug"
          hint={record ? undefined : 'Left empty, derived from the name.'}
          error={errors.slug?.message}
        >
          <Input
            id={id('slug')}
            autoComplete="off"
            {...form.register('slug')}
            {...described(id('slug'), errors.slug?.message, !record)}
          />
        </Field>
        {kind === 'authors' && (
          <>
            <Field id={id('email')} label="E-mail" error={errors.email?.message}>
              <Input
                id={id('email')}
                type="email"
                {...form.register('email')}
                {...described(id('email'), errors.email?.message)}
              />
            </Field>
            <Field id={id('role')} label="Role">
              <NativeSelect id={id('role')} {...form.register('role')}>
                <option value="author">Author</option>
                <option value="editor">Editor</option>
                <option value="contributor">Contributor</option>
                <option value="administrator">Administrator</option>
              </NativeSelect>
            </Field>
          </>
        )}
        <Field
          id={id('description')}
          label={kind === 'authors' ? 'Biography' : 'Description'}
          error={errors.description?.message}
        >
          <Textarea id={id('description')} {...form.register('description')} />
        </Field>
        <div className="flex flex-wrap justify-end gap-2">
          <ApiCallButton call={call} />
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button type="submit" disabled={save.isPending}>
            {record ? 'Save' : `Create the ${meta.one}`}
          </Button>
        </div>
      </form>
    </DialogContent>
  );
}

function DeleteDialog({ kind, record, onClose }: { kind: Kind; record: Row; onClose: () => void }) {
  const meta = KINDS[kind];
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteRecord(kind, record.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: contentKeys.all });
      toast.success(`Deleted “${nameOf(record)}”`);
      onClose();
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <DialogContent
      title={`Delete the ${meta.one} “${nameOf(record)}”?`}
      description={
        kind === 'authors'
          ? 'Their posts stay, without an author.'
          : `Posts keep their content and lose this ${meta.one}.`
      }
    >
      <div className="flex flex-wrap justify-end gap-2">
        <ApiCallButton
          call={{
            operationId: `delete${meta.op}`,
            method: 'DELETE',
            path: `/api/v1/dashboard/content/${kind}/{${meta.id}}`,
            pathParams: { [meta.id]: record.id },
          }}
        />
        <DialogClose asChild>
          <Button variant="outline">Keep it</Button>
        </DialogClose>
        <Button variant="destructive" disabled={remove.isPending} onClick={() => remove.mutate()}>
          Delete
        </Button>
      </div>
    </DialogContent>
  );
}

/** Authors, tags or categories: a paged list with create, edit and delete in dialogs. */
function RecordsPage({ kind }: { kind: Kind }) {
  const meta = KINDS[kind];
  const search = useSearch({ strict: false }) as { page?: number };
  const navigate = useNavigate();
  const query = { page: search.page ?? 1, page_size: PAGE_SIZE };
  const list = useQuery({
    queryKey: contentKeys.list(kind, query),
    queryFn: () => listOf(kind, query),
    placeholderData: keepPreviousData,
  });
  const [dialog, setDialog] = useState<{ mode: 'edit' | 'delete'; record: Row | null } | null>(null);
  const columns: ColumnDef<Row>[] = [
    {
      header: kind === 'authors' ? 'Full name' : 'Name',
      cell: ({ row }) => <span className="font-medium">{nameOf(row.original)}</span>,
    },
    { header: 'Slug', cell: ({ row }) => <code className="text-xs">{row.original.slug}</code> },
    kind === 'authors'
      ? { header: 'Role', cell: ({ row }) => ('role' in row.original ? row.original.role : '') }
      : {
          header: 'Description',
          cell: ({ row }) => ('description' in row.original ? row.original.description : null) ?? '—',
        },
    {
      header: 'Actions',
      cell: ({ row }) => (
        <div className="flex gap-1">
          <Button
            variant="ghost"
            size="icon"
            aria-label={`Edit ${nameOf(row.original)}`}
            onClick={() => setDialog({ mode: 'edit', record: row.original })}
          >
            <Pencil />
          </Button>
          <Button
            variant="ghost"
            size="icon"
            aria-label={`Delete ${nameOf(row.original)}`}
            onClick={() => setDialog({ mode: 'delete', record: row.original })}
          >
            <Trash2 />
          </Button>
        </div>
      ),
    },
  ];
  return (
    <>
      <PageHeader
        title="Content"
        description="Posts, pages, authors, tags and categories of your site."
        actions={
          <Button onClick={() => setDialog({ mode: 'edit', record: null })}>
            <Plus aria-hidden /> New {meta.one}
          </Button>
        }
      />
      <ContentSections />
      <h2 className="mb-3 text-lg font-semibold">{meta.title}</h2>
      <DataTable
        label={meta.title}
        columns={columns}
        data={list.data?.rows ?? []}
        getRowId={(r) => r.id}
        isLoading={list.isLoading}
        error={list.error}
        retry={() => void list.refetch()}
        empty={<Empty title={`No ${kind} yet`}>Create one with “New {meta.one}”.</Empty>}
        footer={
          list.data && (
            <Pager
              page={list.data.page}
              pageSize={list.data.page_size}
              total={list.data.total}
              onPage={(page) => void navigate({ to: `/content/${kind}`, search: { page } })}
            />
          )
        }
      />
      <Dialog open={dialog !== null} onOpenChange={(open) => !open && setDialog(null)}>
        {dialog?.mode === 'edit' && (
          <RecordDialog
            key={dialog.record?.id ?? 'new'}
            kind={kind}
            record={dialog.record}
            onClose={() => setDialog(null)}
          />
        )}
        {dialog?.mode === 'delete' && dialog.record && (
          <DeleteDialog kind={kind} record={dialog.record} onClose={() => setDialog(null)} />
        )}
      </Dialog>
    </>
  );
}

export const AuthorsPage = () => <RecordsPage kind="authors" />;
export const TagsPage = () => <RecordsPage kind="tags" />;
export const CategoriesPage = () => <RecordsPage kind="categories" />;
