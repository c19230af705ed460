import { useEffect, useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api, unwrap, type components } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { Input } from '@/components/ui/input';
import type { ApiCall } from '@/lib/api-call';
import { formatNumber } from '@/lib/format';

export type ContentMedia = components['schemas']['ContentMedia'];

/** What uploadContentMedia takes: at most 5 MB decoded (the server says so too, in a 422). */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const ACCEPT = 'image/png,image/jpeg,image/webp,image/gif,image/avif';

/** The file as a `data:image/...;base64,` URL, the form uploadContentMedia takes. */
function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read'));
    reader.readAsDataURL(file);
  });
}

/**
 * Uploads an image for content (POST /api/v1/dashboard/content/media): the server re-encodes it (WebP, metadata
 * dropped) and answers its public URL on this service's origin, which the console's CSP lets it show.
 */
export async function uploadContentImage(file: File): Promise<ContentMedia> {
  if (file.size > IMAGE_MAX_BYTES) {
    throw new Error(
      `The image is ${formatNumber(file.size)} bytes; at most ${formatNumber(IMAGE_MAX_BYTES)} are taken`,
    );
  }
  const dataUrl = await readAsDataUrl(file);
  return unwrap(api.POST('/api/v1/dashboard/content/media', { body: { file: dataUrl } }));
}

/** The upload as "show the API call" writes it (the image's base64 elided). */
export const uploadCall: ApiCall = {
  operationId: 'uploadContentMedia',
  method: 'POST',
  path: '/api/v1/dashboard/content/media',
  body: { file: 'data:image/png;base64,…' },
};

/**
 * A labelled file input that shows the chosen image at once (a blob: URL, which the CSP allows), uploads it and
 * hands the uploaded image's URL to `onUploaded`. `onPreview` receives the blob URL while it is shown (null once
 * it goes); the component revokes it when a new file is chosen or it unmounts.
 */
export function ImageUpload({
  id,
  label,
  hint,
  onPreview,
  onUploaded,
}: {
  id: string;
  label: string;
  hint?: string;
  onPreview: (blobUrl: string | null) => void;
  onUploaded: (media: ContentMedia) => void;
}) {
  const [preview, setPreview] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const upload = useMutation({
    mutationFn: uploadContentImage,
    onSuccess: (media) => {
      onUploaded(media);
      toast.success(`Uploaded (${media.width}×${media.height}); save to keep it`);
    },
    onError: (error) => {
      toast.error(describeError(error));
      setPreview(null);
      if (input.current) input.current.value = '';
    },
  });
  // The blob URL lives as long as it is shown.
  useEffect(() => {
    onPreview(preview);
    return () => {
      if (preview) URL.revokeObjectURL(preview);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [preview]);

  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <Input
          ref={input}
          id={id}
          type="file"
          accept={ACCEPT}
          disabled={upload.isPending}
          aria-describedby={hint ? `${id}-hint` : undefined}
          className="h-auto min-w-0 flex-1 py-1 file:mr-3 file:rounded file:border-0 file:bg-muted file:px-2 file:py-1 file:text-sm file:text-foreground"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (!file) return;
            setPreview(URL.createObjectURL(file));
            upload.mutate(file);
          }}
        />
        <ApiCallButton call={uploadCall} />
      </div>
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
      <p className="text-xs text-muted-foreground" aria-live="polite">
        {upload.isPending ? 'Uploading…' : upload.isSuccess ? 'Uploaded.' : ''}
      </p>
    </div>
  );
}
