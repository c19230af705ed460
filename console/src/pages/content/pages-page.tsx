import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Plus } from 'lucide-react';
import { api, unwrap, type components } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Empty, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Label, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatRelative } from '@/lib/format';
import { StatusBadge } from './posts-page';
import { ContentSections, contentKeys } from './shared';
import { Pager } from '@/components/pager';

type SitePage = components['schemas']['Page'];
const PAGE_SIZE = 20;
const route = getRouteApi('/app/content/pages');

const columns: ColumnDef<SitePage>[] = [
  {
    header: 'Title',
    cell: ({ row }) => (
      <Link
        to="/content/pages/$pageId"
        params={{ pageId: row.original.id }}
        className="font-medium underline-offset-4 hover:underline"
        onClick={(e) => e.stopPropagation()}
      >
        {row.original.title}
      </Link>
    ),
  },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Blocks', cell: ({ row }) => row.original.blocks.length },
  {
    header: 'Updated',
    cell: ({ row }) => (
      <time title={formatDateTime(row.original.updated_at)}>{formatRelative(row.original.updated_at)}</time>
    ),
  },
];

/** The client's pages in their public order, drafts and published. */
export function PagesPage() {
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/content/pages' });
  const query = { ...search, page: search.page ?? 1, page_size: PAGE_SIZE };
  const pages = useQuery({
    queryKey: contentKeys.list('pages', query),
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/content/pages', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader
        title="Content"
        description="Posts, pages, authors, tags and categories of your site."
        actions={
          <Button asChild>
            <Link to="/content/pages/new">
              <Plus aria-hidden /> New page
            </Link>
          </Button>
        }
      />
      <ContentSections />
      <h2 className="mb-3 text-lg font-semibold">Pages</h2>
      <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="pages-status">Status</Label>
          <NativeSelect
            id="pages-status"
            className="w-48"
            value={search.status ?? ''}
            onChange={(e) =>
              void navigate({
                search: { status: (e.target.value || undefined) as 'draft' | 'published' | undefined },
              })
            }
          >
            <option value="">All</option>
            <option value="draft">Drafts</option>
            <option value="published">Published</option>
          </NativeSelect>
        </div>
        <ApiCallButton
          label="List call"
          call={{ operationId: 'listPages', method: 'GET', path: '/api/v1/dashboard/content/pages', query }}
        />
      </div>
      <DataTable
        label="Pages"
        columns={columns}
        data={pages.data?.pages ?? []}
        getRowId={(p) => p.id}
        isLoading={pages.isLoading}
        error={pages.error}
        retry={() => void pages.refetch()}
        onRowClick={(p) => void navigate({ to: '/content/pages/$pageId', params: { pageId: p.id } })}
        empty={<Empty title={search.status ? 'No page matches this filter' : 'No pages yet'} />}
        footer={
          pages.data && (
            <Pager
              page={pages.data.page}
              pageSize={pages.data.page_size}
              total={pages.data.total}
              onPage={(p) => void navigate({ search: (prev) => ({ ...prev, page: p }) })}
            />
          )
        }
      />
    </>
  );
}
