import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Pause, Play, Trash2, Zap } from 'lucide-react';
import { toast } from 'sonner';
import { api, unwrap } from '@/api/client';
import { ApiError, describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { Button } from '@/components/ui/button';
import { Dialog, DialogClose, DialogContent } from '@/components/ui/dialog';
import { formatDateTime, formatRelative } from '@/lib/format';
import type { Watch } from './queries';

const BASE = '/api/v1/dashboard/client/watches/{watch_id}';

/**
 * What a refused trigger says: "too soon" in words with the time it may run again (Retry-After), or the API's
 * own words for the rest.
 */
export function describeTriggerError(error: unknown, now = Date.now()): string {
  if (error instanceof ApiError && error.code === 'watch_trigger_too_soon') {
    const when = error.retryAfterSeconds ? new Date(now + error.retryAfterSeconds * 1000) : null;
    return when
      ? `Too soon to run this watch again: it ran or was triggered recently. It can run again ${formatRelative(when, now)}, at ${formatDateTime(when)}.`
      : `Too soon to run this watch again: ${error.detail}.`;
  }
  if (error instanceof ApiError && error.code === 'watch_creator_gone')
    return `${error.detail}. Resume the watch first: you become its creator.`;
  return describeError(error);
}

/** Pause or resume, run now and delete (with a confirmation), each beside its API call. */
export function WatchActions({ watch, onDeleted }: { watch: Watch; onDeleted: () => void }) {
  const queryClient = useQueryClient();
  const path = { watch_id: watch.watch_id };
  const [refusal, setRefusal] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['watches'] });

  const pause = useMutation({
    mutationFn: () => unwrap(api.POST(`${BASE}/pause`, { params: { path } })),
    onSuccess: () => {
      toast.success(`Paused “${watch.name}”: no run starts until it is resumed`);
      return refresh();
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const resume = useMutation({
    mutationFn: () => unwrap(api.POST(`${BASE}/resume`, { params: { path } })),
    onSuccess: () => {
      toast.success(`Resumed “${watch.name}”: you are its creator now`);
      return refresh();
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const trigger = useMutation({
    mutationFn: () => unwrap(api.POST(`${BASE}/trigger`, { params: { path } })),
    onMutate: () => setRefusal(null),
    onSuccess: () => {
      toast.success(`A run of “${watch.name}” is asked for; it shows below within moments`);
      return refresh();
    },
    onError: (error) => {
      const words = describeTriggerError(error);
      setRefusal(words);
      toast.error(words);
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE(BASE, { params: { path } })),
    onSuccess: () => {
      toast.success(`Deleted “${watch.name}”`);
      setConfirmDelete(false);
      queryClient.removeQueries({ queryKey: ['watches', 'detail', watch.watch_id] });
      void refresh();
      onDeleted();
    },
    onError: (error) => toast.error(describeError(error)),
  });

  const paused = watch.state === 'paused';
  return (
    <div className="flex flex-col items-end gap-2">
      <div className="flex flex-wrap items-center justify-end gap-2">
        {paused ? (
          <span className="flex items-center gap-1">
            <Button onClick={() => resume.mutate()} disabled={resume.isPending}>
              <Play aria-hidden /> Resume
            </Button>
            <ApiCallButton
              label="API"
              call={{ operationId: 'resumeWatch', method: 'POST', path: `${BASE}/resume`, pathParams: path }}
            />
          </span>
        ) : (
          <span className="flex items-center gap-1">
            <Button variant="outline" onClick={() => pause.mutate()} disabled={pause.isPending}>
              <Pause aria-hidden /> Pause
            </Button>
            <ApiCallButton
              label="API"
              call={{ operationId: 'pauseWatch', method: 'POST', path: `${BASE}/pause`, pathParams: path }}
            />
          </span>
        )}
        <span className="flex items-center gap-1">
          <Button variant="outline" onClick={() => trigger.mutate()} disabled={trigger.isPending}>
            <Zap aria-hidden /> Run now
          </Button>
          <ApiCallButton
            label="API"
            call={{ operationId: 'triggerWatch', method: 'POST', path: `${BASE}/trigger`, pathParams: path }}
          />
        </span>
        <span className="flex items-center gap-1">
          <Button variant="destructive" onClick={() => setConfirmDelete(true)}>
            <Trash2 aria-hidden /> Delete
          </Button>
          <ApiCallButton
            label="API"
            call={{ operationId: 'deleteWatch', method: 'DELETE', path: BASE, pathParams: path }}
          />
        </span>
      </div>
      {refusal && (
        <p role="alert" className="max-w-xl text-right text-sm text-destructive">
          {refusal}
        </p>
      )}
      <Dialog open={confirmDelete} onOpenChange={setConfirmDelete}>
        <DialogContent
          title={`Delete “${watch.name}”?`}
          description="Its schedule and its runs' records go at once: no run starts after this. A run in progress finishes as an ordinary job; the jobs of past runs and the leads they found stay."
        >
          <div className="flex justify-end gap-2">
            <DialogClose asChild>
              <Button variant="outline">Keep it</Button>
            </DialogClose>
            <Button variant="destructive" onClick={() => remove.mutate()} disabled={remove.isPending}>
              {remove.isPending ? 'Deleting…' : 'Delete the watch'}
            </Button>
          </div>
        </DialogContent>
      </Dialog>
    </div>
  );
}
