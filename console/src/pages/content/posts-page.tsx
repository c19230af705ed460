import { useState } from 'react';
import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Plus } from 'lucide-react';
import { api, unwrap, type components } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Empty, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Input, Label, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatRelative } from '@/lib/format';
import { ContentSections, contentKeys } from './shared';
import { Pager } from '@/components/pager';
import type { PostsSearch } from './routes';

type PostSummary = components['schemas']['PostSummary'];
const PAGE_SIZE = 20;
const route = getRouteApi('/app/content/posts');

export const StatusBadge = ({ status }: { status: 'draft' | 'published' }) => (
  <Badge tone={status === 'published' ? 'success' : 'neutral'}>{status === 'published' ? 'Published' : 'Draft'}</Badge>
);

const columns: ColumnDef<PostSummary>[] = [
  {
    header: 'Title',
    cell: ({ row }) => (
      <Link
        to="/content/posts/$postId"
        params={{ postId: row.original.id }}
        className="font-medium underline-offset-4 hover:underline"
        onClick={(e) => e.stopPropagation()}
      >
        {row.original.title}
      </Link>
    ),
  },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { header: 'Author', cell: ({ row }) => row.original.author?.full_name ?? '—' },
  { header: 'Tags', cell: ({ row }) => row.original.tags.join(', ') || '—' },
  {
    header: 'Updated',
    cell: ({ row }) => (
      <time title={formatDateTime(row.original.updated_at)}>{formatRelative(row.original.updated_at)}</time>
    ),
  },
];

/** The client's posts, drafts and published, filtered and paged in the URL. */
export function PostsPage() {
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/content/posts' });
  const [q, setQ] = useState(search.q ?? '');
  const query = { ...search, page: search.page ?? 1, page_size: PAGE_SIZE };
  const posts = useQuery({
    queryKey: contentKeys.list('posts', query),
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/content/posts', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  const tags = useQuery({
    queryKey: contentKeys.list('tags', { page_size: 100 }),
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/content/tags', { params: { query: { page_size: 100 } } })),
  });
  const categories = useQuery({
    queryKey: contentKeys.list('categories', { page_size: 100 }),
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/content/categories', { params: { query: { page_size: 100 } } })),
  });
  const filter = (patch: Partial<PostsSearch>) =>
    void navigate({ search: (prev: PostsSearch) => ({ ...prev, ...patch, page: undefined }) });
  const filtered = Boolean(search.status || search.tag || search.category || search.q || search.author);

  return (
    <>
      <PageHeader
        title="Content"
        description="Posts, pages, authors, tags and categories of your site."
        actions={
          <Button asChild>
            <Link to="/content/posts/new">
              <Plus aria-hidden /> New post
            </Link>
          </Button>
        }
      />
      <ContentSections />
      <h2 className="mb-3 text-lg font-semibold">Posts</h2>
      <form
        className="mb-3 grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
        role="search"
        aria-label="Filter posts"
        onSubmit={(e) => {
          e.preventDefault();
          filter({ q: q.trim() || undefined });
        }}
      >
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="posts-q">Title contains</Label>
          <Input id="posts-q" type="search" value={q} onChange={(e) => setQ(e.target.value)} />
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="posts-status">Status</Label>
          <NativeSelect
            id="posts-status"
            value={search.status ?? ''}
            onChange={(e) => filter({ status: (e.target.value || undefined) as PostsSearch['status'] })}
          >
            <option value="">All</option>
            <option value="draft">Drafts</option>
            <option value="published">Published</option>
          </NativeSelect>
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="posts-tag">Tag</Label>
          <NativeSelect
            id="posts-tag"
            value={search.tag ?? ''}
            onChange={(e) => filter({ tag: e.target.value || undefined })}
          >
            <option value="">Any tag</option>
            {tags.data?.tags.map((t) => (
              <option key={t.id} value={t.slug}>
                {t.name}
              </option>
            ))}
          </NativeSelect>
        </div>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="posts-category">Category</Label>
          <NativeSelect
            id="posts-category"
            value={search.category ?? ''}
            onChange={(e) => filter({ category: e.target.value || undefined })}
          >
            <option value="">Any category</option>
            {categories.data?.categories.map((c) => (
              <option key={c.id} value={c.slug}>
                {c.name}
              </option>
            ))}
          </NativeSelect>
        </div>
        <button type="submit" className="sr-only">
          Search
        </button>
      </form>
      <div className="mb-2 flex justify-end">
        <ApiCallButton
          label="List call"
          call={{ operationId: 'listPosts', method: 'GET', path: '/api/v1/dashboard/content/posts', query }}
        />
      </div>
      <DataTable
        label="Posts"
        columns={columns}
        data={posts.data?.posts ?? []}
        getRowId={(p) => p.id}
        isLoading={posts.isLoading}
        error={posts.error}
        retry={() => void posts.refetch()}
        onRowClick={(p) => void navigate({ to: '/content/posts/$postId', params: { postId: p.id } })}
        empty={
          <Empty title={filtered ? 'No post matches these filters' : 'No posts yet'}>
            {filtered ? 'Change or clear the filters.' : 'Write the first one with “New post”.'}
          </Empty>
        }
        footer={
          posts.data && (
            <Pager
              page={posts.data.page}
              pageSize={posts.data.page_size}
              total={posts.data.total}
              onPage={(p) => void navigate({ search: (prev: PostsSearch) => ({ ...prev, page: p }) })}
            />
          )
        }
      />
    </>
  );
}
