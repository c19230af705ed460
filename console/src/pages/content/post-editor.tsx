import { useEffect, useRef, useState } from 'react';
import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { toast } from 'sonner';
import { ArrowLeft, Eye, Save, Send, Undo } from 'lucide-react';
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
import { EMPTY_DOC, RichTextEditor, type RichTextDoc } from './rich-text-editor';
import { StatusBadge } from './posts-page';
import { PROSE, SLUG_PATTERN, contentKeys, described, sameOriginImage, slugify, DeleteContentItem } from './shared';
import { Field } from '@/components/ui/input';

type Post = components['schemas']['Post'];

const postForm = z.object({
  title: z.string().trim().min(1, 'A title is needed').max(300),
  slug: z
    .string()
    .min(1, 'A slug is needed')
    .max(200)
    .regex(SLUG_PATTERN, 'Lower-case letters and digits, words joined by single hyphens'),
  excerpt: z.string().max(1000),
  author_id: z.string(),
  tag_ids: z.array(z.string()),
  category_ids: z.array(z.string()),
  cover_image_url: z.union([z.literal(''), z.url('A full address (https://…)').max(2048)]),
  featured_image_alt: z.string().max(300),
});
type PostForm = z.infer<typeof postForm>;

const editRoute = getRouteApi('/app/content/posts/$postId');

export function NewPostPage() {
  return <PostEditor post={null} />;
}

export function EditPostPage() {
  const { postId } = editRoute.useParams();
  const post = useQuery({
    queryKey: contentKeys.one('posts', postId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/dashboard/content/posts/{post_id}', { params: { path: { post_id: postId } } })),
  });
  if (post.isLoading) return <Loading label="Loading the post…" />;
  if (post.error) return <ErrorState error={post.error} retry={() => void post.refetch()} />;
  return <PostEditor key={post.data!.id} post={post.data!} />;
}

const refs = (page_size = 100) => ({ params: { query: { page_size } } });

function useContentRefs() {
  const authors = useQuery({
    queryKey: contentKeys.list('authors', { page_size: 100 }),
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/content/authors', refs())),
  });
  const tags = useQuery({
    queryKey: contentKeys.list('tags', { page_size: 100 }),
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/content/tags', refs())),
  });
  const categories = useQuery({
    queryKey: contentKeys.list('categories', { page_size: 100 }),
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/content/categories', refs())),
  });
  return {
    authors: authors.data?.authors ?? [],
    tags: tags.data?.tags ?? [],
    categories: categories.data?.categories ?? [],
  };
}

/** A fieldset of checkboxes over a list of records (tags, categories). */
function ChoiceGroup({
  legend,
  options,
  value,
  onChange,
  empty,
}: {
  legend: string;
  options: { id: string; name: string }[];
  value: string[];
  onChange: (ids: string[]) => void;
  empty: React.ReactNode;
}) {
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend className="mb-1.5 text-sm font-medium">{legend}</legend>
      {options.length === 0 && <p className="text-xs text-muted-foreground">{empty}</p>}
      <div className="flex flex-wrap gap-x-4 gap-y-1">
        {options.map((o) => (
          <label key={o.id} className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              className="size-4 accent-primary"
              checked={value.includes(o.id)}
              onChange={(e) => onChange(e.target.checked ? [...value, o.id] : value.filter((id) => id !== o.id))}
            />
            {o.name}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The cover as it will look: the file just chosen (a blob: URL) while there is one, else the cover's address. */
function CoverImage({ url, alt }: { url: string; alt: string }) {
  if (!url) return null;
  if (sameOriginImage(url))
    return (
      <img
        src={url}
        alt={alt || 'Cover image preview'}
        data-testid="cover-preview"
        className="max-h-48 max-w-full self-start rounded-md border border-border"
      />
    );
  return (
    <p className="text-xs text-muted-foreground" role="note">
      No preview here: the console loads images from its own origin only (its Content-Security-Policy); the public site
      shows this image from its own address.
    </p>
  );
}

/**
 * The post as the public site renders it. A published post comes from the public read (GET
 * /api/v1/content/posts/{slug}?format=html with the client's content domain in X-Content-Domain); the public read
 * answers drafts with 404, so a draft comes from the dashboard read with format=html, whose body_html the same
 * server renderer (src/content/render-html.ts) wrote at the last save.
 */
function Preview({ post }: { post: Post }) {
  const site = useQuery({
    queryKey: contentKeys.site,
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/content/site')),
  });
  const domain = site.data?.content_domains[0];
  const published = post.status === 'published';
  const preview = useQuery({
    queryKey: contentKeys.one('preview', `${post.id}:${post.updated_at}:${published ? domain : 'draft'}`),
    enabled: site.isSuccess,
    queryFn: async () => {
      if (published && domain) {
        const read = await unwrap(
          api.GET('/api/v1/content/posts/{slug}', {
            params: { path: { slug: post.slug }, query: { format: 'html' } },
            headers: { 'X-Content-Domain': domain },
          }),
        );
        return { html: read.body_html ?? '', title: read.title, source: `the public read for ${domain}` };
      }
      const read = await unwrap(
        api.GET('/api/v1/dashboard/content/posts/{post_id}', {
          params: { path: { post_id: post.id }, query: { format: 'html' } },
        }),
      );
      return {
        html: read.body_html ?? '',
        title: read.title,
        source: published
          ? 'the public renderer (your client has no content domain, so the site serves nothing yet)'
          : 'the public renderer, as the draft was last saved (the public read shows published posts only)',
      };
    },
  });
  if (site.isLoading || preview.isLoading) return <Loading label="Rendering the preview…" />;
  if (site.error || preview.error)
    return <ErrorState error={site.error ?? preview.error} retry={() => void preview.refetch()} />;
  return (
    <section aria-labelledby="preview-heading" className="flex flex-col gap-2">
      <h2 id="preview-heading" className="text-lg font-semibold">
        Preview
      </h2>
      <p className="text-xs text-muted-foreground">Rendered by {preview.data!.source}.</p>
      <article aria-label="Rendered post" className="rounded-md border border-border p-4" data-testid="post-preview">
        <p className="mb-2 text-2xl font-semibold">{preview.data!.title}</p>
        {/* body_html is sanitised by the server's renderer (escaped text, only known tags, only http(s)/mailto/tel
            URLs): that, and only that, is why it may be inserted as HTML here. */}
        <div className={PROSE} dangerouslySetInnerHTML={{ __html: preview.data!.html }} />
      </article>
    </section>
  );
}

function PublishControls({ post }: { post: Post }) {
  const queryClient = useQueryClient();
  const published = post.status === 'published';
  const call: ApiCall = {
    operationId: published ? 'unpublishPost' : 'publishPost',
    method: 'POST',
    path: `/api/v1/dashboard/content/posts/{post_id}/${published ? 'unpublish' : 'publish'}`,
    pathParams: { post_id: post.id },
  };
  const toggle = useMutation({
    mutationFn: () =>
      unwrap(
        published
          ? api.POST('/api/v1/dashboard/content/posts/{post_id}/unpublish', {
              params: { path: { post_id: post.id } },
            })
          : api.POST('/api/v1/dashboard/content/posts/{post_id}/publish', { params: { path: { post_id: post.id } } }),
      ),
    onSuccess: (next) => {
      queryClient.setQueryData(contentKeys.one('posts', post.id), next);
      void queryClient.invalidateQueries({ queryKey: ['content', 'posts', 'list'] });
      toast.success(next.status === 'published' ? 'Published' : 'Unpublished: the post is a draft again');
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <div className="flex flex-wrap items-center gap-2">
      <StatusBadge status={post.status} />
      {published && <span className="text-xs text-muted-foreground">since {formatDateTime(post.published_at)}</span>}
      <Button variant={published ? 'outline' : 'default'} disabled={toggle.isPending} onClick={() => toggle.mutate()}>
        {published ? <Undo aria-hidden /> : <Send aria-hidden />} {published ? 'Unpublish' : 'Publish'}
      </Button>
      <ApiCallButton call={call} />
    </div>
  );
}

function DeletePost({ post }: { post: Post }) {
  return (
    <DeleteContentItem
      noun="post"
      title={post.title}
      listPath="/content/posts"
      remove={() =>
        unwrap(api.DELETE('/api/v1/dashboard/content/posts/{post_id}', { params: { path: { post_id: post.id } } }))
      }
      call={{
        operationId: 'deletePost',
        method: 'DELETE',
        path: '/api/v1/dashboard/content/posts/{post_id}',
        pathParams: { post_id: post.id },
      }}
    />
  );
}

/** Writes a post: its fields, its body in the rich-text editor, then publishing and the preview once saved. */
function PostEditor({ post }: { post: Post | null }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { authors, tags, categories } = useContentRefs();
  const [body, setBody] = useState<RichTextDoc>((post?.body as RichTextDoc | undefined) ?? EMPTY_DOC);
  const [showPreview, setShowPreview] = useState(false);
  // The slug follows the title until it is edited by hand (an existing post's slug stays as it is).
  const slugEdited = useRef(Boolean(post));
  const tagIds = (names: string[]) => tags.filter((t) => names.includes(t.name)).map((t) => t.id);
  const form = useForm<PostForm>({
    resolver: zodResolver(postForm),
    defaultValues: {
      title: post?.title ?? '',
      slug: post?.slug ?? '',
      excerpt: post?.excerpt ?? '',
      author_id: post?.author?.id ?? '',
      tag_ids: [],
      category_ids: post?.categories.map((c) => c.id) ?? [],
      cover_image_url: post?.cover_image_url ?? '',
      featured_image_alt: post?.featured_image_alt ?? '',
    },
  });
  const { register, handleSubmit, setValue, watch, formState } = form;
  const errors = formState.errors;
  // The post names its tags; their ids come with the tag list.
  const tagsReady = tags.length > 0;
  useEffect(() => {
    if (post && tagsReady) setValue('tag_ids', tagIds(post.tags));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [post, tagsReady]);

  type Doc = components['schemas']['RichTextNode'] & { type: 'doc'; content: components['schemas']['RichTextNode'][] };
  const common = (v: PostForm) => ({
    title: v.title,
    slug: v.slug,
    body: body as Doc,
    tag_ids: v.tag_ids,
    category_ids: v.category_ids,
  });
  /** A new post: what is left empty is omitted (the API derives the excerpt). */
  const createBody = (v: PostForm) => ({
    ...common(v),
    ...(v.excerpt ? { excerpt: v.excerpt } : {}),
    ...(v.author_id ? { author_id: v.author_id } : {}),
    ...(v.cover_image_url ? { cover_image_url: v.cover_image_url } : {}),
    ...(v.featured_image_alt ? { featured_image_alt: v.featured_image_alt } : {}),
  });
  /** A change: what is left empty is cleared (an empty excerpt is derived again from the body). */
  const updateBody = (v: PostForm) => ({
    ...common(v),
    excerpt: v.excerpt || null,
    author_id: v.author_id || null,
    cover_image_url: v.cover_image_url || null,
    featured_image_alt: v.featured_image_alt || null,
  });

  const save = useMutation({
    mutationFn: (v: PostForm) =>
      post
        ? unwrap(
            api.PATCH('/api/v1/dashboard/content/posts/{post_id}', {
              params: { path: { post_id: post.id } },
              body: updateBody(v),
            }),
          )
        : unwrap(api.POST('/api/v1/dashboard/content/posts', { body: createBody(v) })),
    onSuccess: (saved) => {
      queryClient.setQueryData(contentKeys.one('posts', saved.id), saved);
      void queryClient.invalidateQueries({ queryKey: ['content', 'posts', 'list'] });
      void queryClient.invalidateQueries({ queryKey: ['content', 'tags'] });
      toast.success(post ? 'Saved' : 'Draft created');
      if (!post) void navigate({ to: '/content/posts/$postId', params: { postId: saved.id } });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const submit = handleSubmit((v) => save.mutate(v));

  const titleField = register('title', {
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      if (!slugEdited.current) setValue('slug', slugify(e.target.value), { shouldValidate: formState.isSubmitted });
    },
  });
  const slugField = register('slug', {
    onChange: () => {
      slugEdited.current = true;
    },
  });
  const cover = watch('cover_image_url');
  // The file just chosen for upload, shown at once from memory; the uploaded image's address replaces it on save.
  const [coverPreview, setCoverPreview] = useState<string | null>(null);
  const coverAlt = watch('featured_image_alt');
  const saveCall: ApiCall = post
    ? {
        operationId: 'updatePost',
        method: 'PATCH',
        path: '/api/v1/dashboard/content/posts/{post_id}',
        pathParams: { post_id: post.id },
        body: updateBody(form.getValues()),
      }
    : {
        operationId: 'createPost',
        method: 'POST',
        path: '/api/v1/dashboard/content/posts',
        body: createBody(form.getValues()),
      };

  return (
    <>
      <PageHeader
        title={post ? `Edit “${post.title}”` : 'New post'}
        description={
          <Link
            to="/content/posts"
            search={{}}
            className="inline-flex items-center gap-1 underline-offset-4 hover:underline"
          >
            <ArrowLeft className="size-3" aria-hidden /> All posts
          </Link>
        }
        actions={post && <PublishControls post={post} />}
      />
      <form
        noValidate
        aria-label={post ? 'Edit the post' : 'New post'}
        className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]"
        onSubmit={submit}
        onKeyDown={(e) => {
          // Ctrl/Cmd-S saves from anywhere in the form, the editor included.
          if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
            e.preventDefault();
            void submit();
          }
        }}
      >
        <div className="flex min-w-0 flex-col gap-4">
          <Field id="post-title" label="Title" error={errors.title?.message}>
            <Input
              id="post-title"
              autoComplete="off"
              {...titleField}
              {...described('post-title', errors.title?.message)}
            />
          </Field>
          <Field
            id="post-slug"
            label="Slug"
            hint="The post's address on your site: derived from the title until you edit it."
            error={errors.slug?.message}
          >
            <Input
              id="post-slug"
              autoComplete="off"
              {...slugField}
              {...described('post-slug', errors.slug?.message, true)}
            />
          </Field>
          <div className="flex flex-col gap-1.5">
            <span id="post-body-label" className="text-sm font-medium">
              Body
            </span>
            <p id="post-body-hint" className="text-xs text-muted-foreground">
              Ctrl/Cmd-K adds a link, Ctrl/Cmd-S saves, Escape leaves the editor (Tab indents a list item).
            </p>
            <RichTextEditor value={body} onChange={setBody} labelledBy="post-body-label" />
          </div>
          <Field
            id="post-excerpt"
            label="Excerpt"
            hint="Left empty, the first 200 characters of the body."
            error={errors.excerpt?.message}
          >
            <Textarea
              id="post-excerpt"
              {...register('excerpt')}
              {...described('post-excerpt', errors.excerpt?.message, true)}
            />
          </Field>
        </div>
        <div className="flex min-w-0 flex-col gap-4">
          <Card className="flex flex-col gap-3">
            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={save.isPending}>
                <Save aria-hidden /> {post ? 'Save' : 'Save draft'}
              </Button>
              <ApiCallButton call={saveCall} />
            </div>
            {post && (
              <p className="text-xs text-muted-foreground">
                Last saved {formatDateTime(post.updated_at)} · {post.reading_time} min read
              </p>
            )}
          </Card>
          <Field id="post-author" label="Author">
            <NativeSelect id="post-author" {...register('author_id')}>
              <option value="">No author</option>
              {authors.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.full_name}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <ChoiceGroup
            legend="Tags"
            options={tags}
            value={watch('tag_ids')}
            onChange={(ids) => setValue('tag_ids', ids, { shouldDirty: true })}
            empty={
              <Link to="/content/tags" search={{}} className="underline">
                Create tags first
              </Link>
            }
          />
          <ChoiceGroup
            legend="Categories"
            options={categories}
            value={watch('category_ids')}
            onChange={(ids) => setValue('category_ids', ids, { shouldDirty: true })}
            empty={
              <Link to="/content/categories" search={{}} className="underline">
                Create categories first
              </Link>
            }
          />
          <ImageUpload
            id="post-cover-upload"
            label="Upload a cover"
            hint="PNG, JPEG, WebP, GIF or AVIF up to 5 MB; stored as WebP without its metadata (EXIF, location)."
            onPreview={setCoverPreview}
            onUploaded={(media) =>
              setValue('cover_image_url', media.url, { shouldDirty: true, shouldValidate: formState.isSubmitted })
            }
          />
          <Field
            id="post-cover"
            label="Cover image address"
            hint="Filled in by an upload, or the address of an image elsewhere (the public site shows it from there)."
            error={errors.cover_image_url?.message}
          >
            <Input
              id="post-cover"
              type="url"
              placeholder="https://"
              {...register('cover_image_url', { onChange: () => setCoverPreview(null) })}
              {...described('post-cover', errors.cover_image_url?.message, true)}
            />
          </Field>
          <Field
            id="post-cover-alt"
            label="Cover image description (alt text)"
            error={errors.featured_image_alt?.message}
          >
            <Input id="post-cover-alt" {...register('featured_image_alt')} />
          </Field>
          <CoverImage url={coverPreview ?? cover} alt={coverAlt} />
        </div>
      </form>
      {post && (
        <div className="mt-6 flex flex-col gap-4">
          <div className="flex flex-wrap gap-2">
            <Button variant="outline" aria-expanded={showPreview} onClick={() => setShowPreview((v) => !v)}>
              <Eye aria-hidden /> {showPreview ? 'Hide the preview' : 'Show the preview'}
            </Button>
            <DeletePost post={post} />
          </div>
          {showPreview && <Preview post={post} />}
        </div>
      )}
    </>
  );
}
