import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Check, Tag, X } from 'lucide-react';
import { api, unwrap, type components } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { ErrorState, Loading } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent } from '@/components/ui/dialog';
import { Input, Label } from '@/components/ui/input';
import { formatDateTime } from '@/lib/format';
import { FlagBadges, useLeadFlagChange } from './flag-actions';
import { LEAD_TYPES, STATUS_FLAGS, TYPE_INFO, leadName, mediaIds, text, type LeadType } from './lead-types';

type Detail = components['schemas']['IdapResource'];

/** Data fields the panel shows otherwise (photos as images) or not at all (the provider's photo addresses). */
const HIDDEN_FIELDS = new Set(['photos', 'photo_urls']);

/**
 * One lead in a panel along the right edge: its fields, flags (qualify, reject, tag), photos and the resources
 * linked to it, each of which opens in the same panel (the URL's `lead`, so Back returns to the one before). Read
 * with the batch operation and `include` of every type: the operation that answers a resource with its related
 * ones.
 */
export function LeadPanel({
  leadRef,
  onOpen,
  onClose,
}: {
  leadRef: string | undefined;
  onOpen: (ref: string) => void;
  onClose: () => void;
}) {
  const detail = useQuery({
    queryKey: ['leads', 'detail', leadRef],
    queryFn: async () => {
      const answer = await unwrap(
        api.POST('/api/v1/idap/batch', { body: { refs: [leadRef!], include: LEAD_TYPES.join(',') } }),
      );
      const lead = answer.results[leadRef!];
      if (!lead)
        throw new Error(
          answer.errors[leadRef!] === 'resource_not_found'
            ? 'This lead was not found'
            : (answer.errors[leadRef!] ?? 'Not found'),
        );
      return lead;
    },
    enabled: Boolean(leadRef),
  });
  const lead = detail.data;
  const type = lead?.resource_type;
  return (
    <Dialog open={Boolean(leadRef)} onOpenChange={(open) => !open && onClose()}>
      {leadRef && (
        <DialogContent
          side="right"
          title={lead ? leadName(lead) : 'Lead'}
          description={
            type ? `${TYPE_INFO[type].one[0].toUpperCase()}${TYPE_INFO[type].one.slice(1)} · ${leadRef}` : leadRef
          }
        >
          {detail.isLoading && <Loading />}
          {detail.error && <ErrorState error={detail.error} retry={() => void detail.refetch()} />}
          {lead && <LeadDetail lead={lead} onOpen={onOpen} />}
        </DialogContent>
      )}
    </Dialog>
  );
}

function LeadDetail({ lead, onOpen }: { lead: Detail; onOpen: (ref: string) => void }) {
  const fields = Object.entries(lead.data).filter(([k, v]) => !HIDDEN_FIELDS.has(k) && text(v) !== '');
  const photos = mediaIds(lead.data);
  const related = LEAD_TYPES.map((t) => [t, lead.related?.[t] ?? []] as const).filter(([, items]) => items.length);
  return (
    <div className="flex flex-col gap-6">
      <FlagsSection lead={lead} />
      {photos.length > 0 && (
        <section aria-labelledby="lead-media">
          <h3 id="lead-media" className="mb-2 font-medium">
            Photos
          </h3>
          <ul className="flex flex-wrap gap-2">
            {photos.map((id, i) => (
              <li key={id}>
                <MediaImage mediaId={id} alt={`Photo ${i + 1} of ${leadName(lead)}`} />
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="lead-fields">
        <h3 id="lead-fields" className="mb-2 font-medium">
          Fields
        </h3>
        <dl className="grid grid-cols-[minmax(7rem,auto)_1fr] gap-x-4 gap-y-1 text-sm">
          {fields.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="text-muted-foreground">{k.replace(/_/g, ' ')}</dt>
              <dd className="break-words">{text(v)}</dd>
            </div>
          ))}
          <dt className="text-muted-foreground">found</dt>
          <dd>{formatDateTime(lead.created_at)}</dd>
          <dt className="text-muted-foreground">changed</dt>
          <dd>{formatDateTime(lead.modified_at)}</dd>
        </dl>
      </section>
      <section aria-labelledby="lead-related">
        <h3 id="lead-related" className="mb-2 font-medium">
          Linked resources
        </h3>
        {related.length === 0 && <p className="text-sm text-muted-foreground">Nothing linked to this lead yet.</p>}
        {related.map(([t, items]) => (
          <div key={t} className="mb-3">
            <h4 className="text-sm font-medium text-muted-foreground">
              {TYPE_INFO[t].label} ({items.length})
            </h4>
            <ul className="mt-1 flex flex-col gap-1">
              {items.map((item) => (
                <li key={item.idap_ref} className="flex flex-wrap items-center gap-2">
                  <Button
                    variant="link"
                    className="h-auto p-0"
                    onClick={() => onOpen(item.idap_ref)}
                    aria-label={`Open ${TYPE_INFO[t].one} ${leadName(item)}`}
                  >
                    {leadName(item)}
                  </Button>
                  <FlagBadges flags={item.flags} />
                </li>
              ))}
            </ul>
          </div>
        ))}
      </section>
    </div>
  );
}

function FlagsSection({ lead }: { lead: Detail }) {
  const change = useLeadFlagChange();
  const [tag, setTag] = useState('');
  const validTag = /^[a-z][a-z0-9_-]{0,31}$/.test(tag);
  const target = { resource_type: lead.resource_type as LeadType, resource_id: lead.resource_id };
  const run = (add?: string[], remove?: string[]) => change.mutate({ lead: target, add, remove });
  const tags = lead.flags.filter((f) => !(STATUS_FLAGS as readonly string[]).includes(f));
  return (
    <section aria-labelledby="lead-flags" className="flex flex-col gap-2">
      <h3 id="lead-flags" className="font-medium">
        Flags
      </h3>
      <FlagBadges flags={lead.flags} />
      <div className="flex flex-wrap items-center gap-2">
        <Button
          size="sm"
          onClick={() => run(['qualified'], lead.flags.includes('new') ? ['new'] : undefined)}
          disabled={change.isPending || lead.flags.includes('qualified')}
        >
          <Check /> Qualify
        </Button>
        <Button
          size="sm"
          variant="destructive"
          onClick={() => run(['rejected'], lead.flags.includes('new') ? ['new'] : undefined)}
          disabled={change.isPending || lead.flags.includes('rejected')}
        >
          <X /> Reject
        </Button>
        <ApiCallButton
          call={{
            operationId: 'updateResourceFlags',
            method: 'PATCH',
            path: '/api/v1/idap/{resource_type}/{resource_id}/flags',
            pathParams: { resource_type: lead.resource_type, resource_id: lead.resource_id },
            body: { add: ['qualified'], remove: ['new'] },
          }}
        />
      </div>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (!validTag) return;
          run([tag]);
          setTag('');
        }}
      >
        <div className="flex flex-col gap-1">
          <Label htmlFor="lead-tag">Add a tag</Label>
          <Input
            id="lead-tag"
            value={tag}
            onChange={(e) => setTag(e.target.value.toLowerCase())}
            className="h-8 w-40"
          />
        </div>
        <Button size="sm" variant="outline" type="submit" disabled={!validTag || change.isPending}>
          <Tag /> Add tag
        </Button>
      </form>
      {tags.length > 0 && (
        <ul className="flex flex-wrap gap-2" aria-label="Tags">
          {tags.map((t) => (
            <li key={t}>
              <Button size="sm" variant="ghost" onClick={() => run(undefined, [t])} disabled={change.isPending}>
                <X /> Remove tag {t}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A photo of the tenant's media, fetched through the API (the client acted for travels as a header) as a thumbnail. */
function MediaImage({ mediaId, alt }: { mediaId: string; alt: string }) {
  const image = useQuery({
    queryKey: ['leads', 'media', mediaId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/idap/media/{media_id}', {
          params: { path: { media_id: mediaId }, query: { thumb: true } },
          parseAs: 'blob',
        }),
      ),
    staleTime: Infinity,
  });
  // One object URL per fetched image, let go once the image has been drawn from it.
  const url = useMemo(() => (image.data ? URL.createObjectURL(image.data as Blob) : null), [image.data]);
  if (image.error) return <p className="text-sm text-destructive">{alt}: not available</p>;
  if (!url) return <div className="size-24 animate-pulse rounded-md bg-muted" aria-hidden />;
  return (
    <img
      src={url}
      alt={alt}
      onLoad={() => URL.revokeObjectURL(url)}
      className="size-24 rounded-md border border-border object-cover"
    />
  );
}
