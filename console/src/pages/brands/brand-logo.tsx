import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ImageOff, Trash2, Upload } from 'lucide-react';
import { toast } from 'sonner';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { Button } from '@/components/ui/button';
import { Field, Input } from '@/components/ui/input';
import { brandQueryKey, Section, type Brand } from './shared';

/** The contract's bound on the data: URL (about 5 MB of image). */
const MAX_DATA_URL = 7_000_000;

/**
 * The logo as the service serves it (getBrandLogoImage), read from this origin: logo_url names the public
 * address, whose path is the same on every origin the service answers on.
 */
const servedPath = (logoUrl: string) => {
  try {
    return new URL(logoUrl, window.location.origin).pathname;
  } catch {
    return logoUrl;
  }
};

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read'));
    reader.readAsDataURL(file);
  });

/**
 * The brand's logo: the chosen image previewed before it is sent, then the square WebP the service made of it
 * (cropped to the centre, at most 256 px) as it serves it; remove it.
 */
export function BrandLogoTab({ brand }: { brand: Brand }) {
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<{ name: string; dataUrl: string } | null>(null);
  const [error, setError] = useState<string | undefined>();
  const path = '/api/v1/brands/{brand_id}/logo' as const;
  const params = { path: { brand_id: brand.brand_id } };
  const refresh = (logoUrl: string | null, updatedAt: string) =>
    queryClient.setQueryData(brandQueryKey(brand.brand_id), { ...brand, logo_url: logoUrl, updated_at: updatedAt });
  const upload = useMutation({
    mutationFn: (file: string) => unwrap(api.POST(path, { params, body: { file } })),
    onSuccess: (logo) => {
      refresh(logo.logo_url, logo.updated_at);
      setChosen(null);
      toast.success('Logo stored');
      void queryClient.invalidateQueries({ queryKey: ['brands', 'settings', brand.brand_id] });
    },
    onError: (e) => toast.error(describeError(e)),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE(path, { params })),
    onSuccess: (logo) => {
      refresh(null, logo.updated_at);
      toast.success('Logo removed');
    },
    onError: (e) => toast.error(describeError(e)),
  });

  const choose = async (file: File | undefined) => {
    setError(undefined);
    setChosen(null);
    if (!file) return;
    if (!file.type.startsWith('image/')) return setError('Choose an image file (PNG, JPEG, WebP, GIF or SVG).');
    const dataUrl = await readAsDataUrl(file);
    if (dataUrl.length > MAX_DATA_URL) return setError('The image is too large: at most about 5 MB.');
    setChosen({ name: file.name, dataUrl });
  };

  return (
    <Section
      id="brand-logo"
      title="Logo"
      description="The service crops it to a square at the centre, at most 256 by 256 pixels, and serves it as WebP."
    >
      <div className="flex flex-wrap gap-6">
        <figure className="flex flex-col items-center gap-2">
          {brand.logo_url ? (
            <img
              src={servedPath(brand.logo_url)}
              alt={`The logo of ${brand.brand_name}, as the service serves it`}
              className="size-32 rounded-md border border-border object-contain"
            />
          ) : (
            <div className="flex size-32 items-center justify-center rounded-md border border-dashed border-border">
              <ImageOff className="size-8 text-muted-foreground" aria-hidden />
            </div>
          )}
          <figcaption className="text-sm text-muted-foreground">
            {brand.logo_url ? 'Current logo' : 'No logo yet'}
          </figcaption>
        </figure>
        {chosen && (
          <figure className="flex flex-col items-center gap-2">
            <img
              src={chosen.dataUrl}
              alt={`Preview of ${chosen.name}, not yet uploaded`}
              className="size-32 rounded-md border border-border object-cover"
            />
            <figcaption className="text-sm text-muted-foreground">Preview (square crop)</figcaption>
          </figure>
        )}
      </div>
      <Field id="logo-file" label="Image file" hint="PNG, JPEG, WebP, GIF or SVG, up to about 5 MB." error={error}>
        <Input
          id="logo-file"
          type="file"
          accept="image/*"
          aria-describedby={`logo-file-hint${error ? ' logo-file-error' : ''}`}
          onChange={(e) => void choose(e.target.files?.[0])}
        />
      </Field>
      <div className="flex flex-wrap items-center gap-2">
        <Button disabled={!chosen || upload.isPending} onClick={() => chosen && upload.mutate(chosen.dataUrl)}>
          <Upload aria-hidden /> {upload.isPending ? 'Uploading…' : 'Upload logo'}
        </Button>
        <ApiCallButton
          call={{
            operationId: 'uploadBrandLogo',
            method: 'POST',
            path,
            pathParams: { brand_id: brand.brand_id },
            body: { file: 'data:image/png;base64,…' },
          }}
        />
        {brand.logo_url && (
          <>
            <Button variant="destructive" disabled={remove.isPending} onClick={() => remove.mutate()}>
              <Trash2 aria-hidden /> Remove logo
            </Button>
            <ApiCallButton
              label="Remove call"
              call={{
                operationId: 'deleteBrandLogo',
                method: 'DELETE',
                path,
                pathParams: { brand_id: brand.brand_id },
              }}
            />
          </>
        )}
      </div>
    </Section>
  );
}
