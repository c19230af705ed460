import { useEffect, useRef, useState } from 'react';
import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { ArrowDown, ArrowLeft, ArrowUp, Plus, Save, Send, Undo, X } from 'lucide-react';
import { api, unwrap, type components } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { ErrorState, Loading, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input, NativeSelect, Textarea } from '@/components/ui/input';
import { formatDateTime } from '@/lib/format';
import type { ApiCall } from '@/lib/api-call';
import { ImageUpload } from './image-upload';
import { StatusBadge } from './posts-page';
import { SLUG_PATTERN, contentKeys, described, sameOriginImage, slugify, DeleteContentItem } from './shared';
import { Field } from '@/components/ui/input';

type SitePage = components['schemas']['Page'];
type Block = components['schemas']['Block'];

/**
 * The block types a page is written with and their fields. The contract names hero, text, image and cta and passes
 * each block's data through as it is; the service renders no page HTML (the public page read answers the blocks as
 * JSON for the site to draw), so these forms write the fields of the contract's own example (hero: heading and
 * image_url; text: markdown) and the evident ones of image and cta.
 */
const BLOCK_TYPES = {
  hero: {
    label: 'Hero',
    fields: [
      { name: 'heading', label: 'Heading', kind: 'text' },
      { name: 'subheading', label: 'Subheading', kind: 'text' },
      { name: 'image_url', label: 'Image address', kind: 'image' },
    ],
  },
  text: { label: 'Text', fields: [{ name: 'markdown', label: 'Text (Markdown)', kind: 'long' }] },
  image: {
    label: 'Image',
    fields: [
      { name: 'url', label: 'Image address', kind: 'image' },
      { name: 'alt', label: 'Description (alt text)', kind: 'text' },
      { name: 'caption', label: 'Caption', kind: 'text' },
    ],
  },
  cta: {
    label: 'Call to action',
    fields: [
      { name: 'heading', label: 'Heading', kind: 'text' },
      { name: 'label', label: 'Button label', kind: 'text' },
      { name: 'url', label: 'Button address', kind: 'url' },
    ],
  },
} as const;
type BlockType = keyof typeof BLOCK_TYPES;

/** A block being edited: a key of its own, so React and the focus follow it as it moves. */
interface EditedBlock {
  key: string;
  type: string;
  data: Record<string, unknown>;
}

let nextKey = 0;
const keyed = (block: Block): EditedBlock => ({ key: `b${nextKey++}`, type: block.type, data: { ...block.data } });

const editRoute = getRouteApi('/app/content/pages/$pageId');

export function NewPagePage() {
  return <PageEditor page={null} />;
}

export function EditPagePage() {
  const { pageId } = editRoute.useParams();
  const page = useQuery({
    queryKey: contentKeys.one('pages', pageId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/dashboard/content/pages/{page_id}', { params: { path: { page_id: pageId } } })),
  });
  if (page.isLoading) return <Loading label="Loading the page…" />;
  if (page.error) return <ErrorState error={page.error} retry={() => void page.refetch()} />;
  return <PageEditor key={page.data!.id} page={page.data!} />;
}

function BlockForm({
  block,
  index,
  count,
  onChange,
  onMove,
  onRemove,
  registerButton,
}: {
  block: EditedBlock;
  index: number;
  count: number;
  onChange: (data: Record<string, unknown>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  registerButton: (action: string, element: HTMLButtonElement | null) => void;
}) {
  const spec = BLOCK_TYPES[block.type as BlockType];
  const label = spec?.label ?? block.type;
  const name = `block ${index + 1} (${label})`;
  const id = (field: string) => `${block.key}-${field}`;
  // A file chosen for an image field, shown from memory until the address is edited by hand.
  const [previews, setPreviews] = useState<Record<string, string | null>>({});
  return (
    <li>
      <fieldset className="flex flex-col gap-3 rounded-md border border-border p-3">
        <legend className="px-1 text-sm font-semibold">
          Block {index + 1}: {label}
        </legend>
        <div className="flex flex-wrap gap-1">
          <Button
            ref={(el) => registerButton('up', el)}
            variant="outline"
            size="sm"
            aria-label={`Move ${name} up`}
            disabled={index === 0}
            onClick={() => onMove(-1)}
          >
            <ArrowUp aria-hidden /> Up
          </Button>
          <Button
            ref={(el) => registerButton('down', el)}
            variant="outline"
            size="sm"
            aria-label={`Move ${name} down`}
            disabled={index === count - 1}
            onClick={() => onMove(1)}
          >
            <ArrowDown aria-hidden /> Down
          </Button>
          <Button variant="outline" size="sm" aria-label={`Remove ${name}`} onClick={onRemove}>
            <X aria-hidden /> Remove
          </Button>
        </div>
        {spec ? (
          spec.fields.map((f) => {
            const value = typeof block.data[f.name] === 'string' ? (block.data[f.name] as string) : '';
            const set = (v: string) => onChange({ ...block.data, [f.name]: v });
            const shown = previews[f.name] ?? value;
            const field = (
              <Field key={f.name} id={id(f.name)} label={f.label}>
                {f.kind === 'long' ? (
                  <Textarea id={id(f.name)} value={value} rows={5} onChange={(e) => set(e.target.value)} />
                ) : (
                  <Input
                    id={id(f.name)}
                    type={f.kind === 'text' ? 'text' : 'url'}
                    value={value}
                    onChange={(e) => {
                      setPreviews((p) => ({ ...p, [f.name]: null }));
                      set(e.target.value);
                    }}
                  />
                )}
                {f.kind === 'image' && sameOriginImage(shown) && (
                  <img src={shown} alt="" className="max-h-32 max-w-full self-start rounded border border-border" />
                )}
              </Field>
            );
            if (f.kind !== 'image') return field;
            return [
              <ImageUpload
                key={`${f.name}-upload`}
                id={id(`${f.name}-upload`)}
                label={`Upload the image of ${name}`}
                onPreview={(url) => setPreviews((p) => ({ ...p, [f.name]: url }))}
                onUploaded={(media) => set(media.url)}
              />,
              field,
            ];
          })
        ) : (
          <p className="text-sm text-muted-foreground">
            A “{block.type}” block written elsewhere: kept as it is (its data is not edited here).
          </p>
        )}
      </fieldset>
    </li>
  );
}

function PagePublishControls({ page }: { page: SitePage }) {
  const queryClient = useQueryClient();
  const published = page.status === 'published';
  const toggle = useMutation({
    mutationFn: () =>
      unwrap(
        published
          ? api.POST('/api/v1/dashboard/content/pages/{page_id}/unpublish', { params: { path: { page_id: page.id } } })
          : api.POST('/api/v1/dashboard/content/pages/{page_id}/publish', { params: { path: { page_id: page.id } } }),
      ),
    onSuccess: (next) => {
      queryClient.setQueryData(contentKeys.one('pages', page.id), next);
      void queryClient.invalidateQueries({ queryKey: ['content', 'pages', 'list'] });
      toast.success(next.status === 'published' ? 'Published' : 'Unpublished: the page is a draft again');
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const call: ApiCall = {
    operationId: published ? 'unpublishPage' : 'publishPage',
    method: 'POST',
    path: `/api/v1/dashboard/content/pages/{page_id}/${published ? 'unpublish' : 'publish'}`,
    pathParams: { page_id: page.id },
  };
  return (
    <div className="flex flex-wrap items-center gap-2">
      <StatusBadge status={page.status} />
      {published && <span className="text-xs text-muted-foreground">since {formatDateTime(page.published_at)}</span>}
      <Button variant={published ? 'outline' : 'default'} disabled={toggle.isPending} onClick={() => toggle.mutate()}>
        {published ? <Undo aria-hidden /> : <Send aria-hidden />} {published ? 'Unpublish' : 'Publish'}
      </Button>
      <ApiCallButton call={call} />
    </div>
  );
}

function DeletePage({ page }: { page: SitePage }) {
  return (
    <DeleteContentItem
      noun="page"
      title={page.title}
      listPath="/content/pages"
      remove={() =>
        unwrap(api.DELETE('/api/v1/dashboard/content/pages/{page_id}', { params: { path: { page_id: page.id } } }))
      }
      call={{
        operationId: 'deletePage',
        method: 'DELETE',
        path: '/api/v1/dashboard/content/pages/{page_id}',
        pathParams: { page_id: page.id },
      }}
    />
  );
}

/** Writes a page: title, slug, description and its blocks as a list of typed forms (add, remove, reorder). */
function PageEditor({ page }: { page: SitePage | null }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [title, setTitle] = useState(page?.title ?? '');
  const [slug, setSlug] = useState(page?.slug ?? '');
  const slugEdited = useRef(Boolean(page));
  const [description, setDescription] = useState(page?.description ?? '');
  const [blocks, setBlocks] = useState<EditedBlock[]>(() => (page?.blocks ?? []).map(keyed));
  const [newType, setNewType] = useState<BlockType>('text');
  const [errors, setErrors] = useState<{ title?: string; slug?: string }>({});
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  // After a move, the focus stays on the button the block was moved with, in the block's new place.
  const focusAfter = useRef<string | null>(null);
  useEffect(() => {
    const wanted = focusAfter.current;
    focusAfter.current = null;
    if (!wanted) return;
    const button = buttons.current.get(wanted);
    // A block moved to the top or bottom loses the button it was moved with: the other one takes the focus.
    if (button && !button.disabled) button.focus();
    else
      buttons.current
        .get(wanted.endsWith(':up') ? wanted.replace(/:up$/, ':down') : wanted.replace(/:down$/, ':up'))
        ?.focus();
  }, [blocks]);

  const move = (index: number, by: -1 | 1) => {
    const to = index + by;
    if (to < 0 || to >= blocks.length) return;
    const next = [...blocks];
    [next[index], next[to]] = [next[to], next[index]];
    setBlocks(next);
    focusAfter.current = `${blocks[index].key}:${by === -1 ? 'up' : 'down'}`;
  };

  const body = () => ({
    title: title.trim(),
    slug,
    description,
    blocks: blocks.map(({ type, data }) => ({ type, data })),
  });
  const save = useMutation({
    mutationFn: () =>
      page
        ? unwrap(
            api.PATCH('/api/v1/dashboard/content/pages/{page_id}', {
              params: { path: { page_id: page.id } },
              body: body(),
            }),
          )
        : unwrap(api.POST('/api/v1/dashboard/content/pages', { body: body() })),
    onSuccess: (saved) => {
      queryClient.setQueryData(contentKeys.one('pages', saved.id), saved);
      void queryClient.invalidateQueries({ queryKey: ['content', 'pages', 'list'] });
      toast.success(page ? 'Saved' : 'Draft page created');
      if (!page) void navigate({ to: '/content/pages/$pageId', params: { pageId: saved.id } });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const found: typeof errors = {};
    if (!title.trim()) found.title = 'A title is needed';
    if (!SLUG_PATTERN.test(slug)) found.slug = 'Lower-case letters and digits, words joined by single hyphens';
    setErrors(found);
    if (!found.title && !found.slug) save.mutate();
  };
  const call: ApiCall = page
    ? {
        operationId: 'updatePage',
        method: 'PATCH',
        path: '/api/v1/dashboard/content/pages/{page_id}',
        pathParams: { page_id: page.id },
        body: body(),
      }
    : { operationId: 'createPage', method: 'POST', path: '/api/v1/dashboard/content/pages', body: body() };

  return (
    <>
      <PageHeader
        title={page ? `Edit the page “${page.title}”` : 'New page'}
        description={
          <Link
            to="/content/pages"
            search={{}}
            className="inline-flex items-center gap-1 underline-offset-4 hover:underline"
          >
            <ArrowLeft className="size-3" aria-hidden /> All pages
          </Link>
        }
        actions={page && <PagePublishControls page={page} />}
      />
      <form
        noValidate
        aria-label={page ? 'Edit the page' : 'New page'}
        className="flex max-w-3xl flex-col gap-4"
        onSubmit={submit}
      >
        <Field id="page-title" label="Title" error={errors.title}>
          <Input
            id="page-title"
            value={title}
            autoComplete="off"
            onChange={(e) => {
              setTitle(e.target.value);
              if (!slugEdited.current) setSlug(slugify(e.target.value));
            }}
            {...described('page-title', errors.title)}
          />
        </Field>
        <Field id="page-slug" label="Slug" hint="Derived from the title until you edit it." error={errors.slug}>
          <Input
            id="page-slug"
            value={slug}
            autoComplete="off"
            onChange={(e) => {
              slugEdited.current = true;
              setSlug(e.target.value);
            }}
            {...described('page-slug', errors.slug, true)}
          />
        </Field>
        <Field id="page-description" label="Description">
          <Textarea id="page-description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <section aria-labelledby="blocks-heading" className="flex flex-col gap-3">
          <h2 id="blocks-heading" className="text-lg font-semibold">
            Blocks
          </h2>
          {blocks.length === 0 && <p className="text-sm text-muted-foreground">No blocks yet: add the first below.</p>}
          <ol className="flex flex-col gap-3" aria-label="Blocks of the page">
            {blocks.map((block, index) => (
              <BlockForm
                key={block.key}
                block={block}
                index={index}
                count={blocks.length}
                onChange={(data) => setBlocks(blocks.map((b) => (b.key === block.key ? { ...b, data } : b)))}
                onMove={(by) => move(index, by)}
                onRemove={() => setBlocks(blocks.filter((b) => b.key !== block.key))}
                registerButton={(action, el) => {
                  const k = `${block.key}:${action}`;
                  if (el) buttons.current.set(k, el);
                  else buttons.current.delete(k);
                }}
              />
            ))}
          </ol>
          <div className="flex flex-wrap items-end gap-2">
            <Field id="new-block-type" label="New block type">
              <NativeSelect
                id="new-block-type"
                value={newType}
                onChange={(e) => setNewType(e.target.value as BlockType)}
              >
                {Object.entries(BLOCK_TYPES).map(([type, spec]) => (
                  <option key={type} value={type}>
                    {spec.label}
                  </option>
                ))}
              </NativeSelect>
            </Field>
            <Button variant="outline" onClick={() => setBlocks([...blocks, keyed({ type: newType, data: {} })])}>
              <Plus aria-hidden /> Add block
            </Button>
          </div>
        </section>
        <Card className="flex flex-wrap items-center gap-2">
          <Button type="submit" disabled={save.isPending}>
            <Save aria-hidden /> {page ? 'Save' : 'Save draft'}
          </Button>
          <ApiCallButton call={call} />
          {page && <DeletePage page={page} />}
        </Card>
      </form>
    </>
  );
}
