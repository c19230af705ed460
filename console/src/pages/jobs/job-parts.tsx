import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Ban, Pause, Play } from 'lucide-react';
import { toast } from 'sonner';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { Badge } from '@/components/ui/card';
import { Button } from '@/components/ui/button';
import type { ApiCall } from '@/lib/api-call';
import { formatNumber } from '@/lib/format';
import { rowOf, type JobRow } from './jobs-data';

const TONE: Record<string, Parameters<typeof Badge>[0]['tone']> = {
  queued: 'neutral',
  processing: 'info',
  running: 'info',
  paused: 'warning',
  completed: 'success',
  failed: 'danger',
  cancelled: 'neutral',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={TONE[status] ?? 'neutral'} data-job-status={status}>
      {status}
    </Badge>
  );
}

/** Units done of those planned ({done, total}; total 0 while not yet known), as a labelled progress bar. */
export function JobProgress({ job, label }: { job: Pick<JobRow, 'progress' | 'status'>; label: string }) {
  const { done, total } = job.progress;
  const known = total > 0;
  const percent = known ? Math.min(100, Math.round((done / total) * 100)) : 0;
  const text = known ? `${formatNumber(done)} of ${formatNumber(total)}` : job.status === 'queued' ? 'waiting' : '—';
  return (
    <div className="flex min-w-28 items-center gap-2">
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={known ? total : undefined}
        aria-valuenow={known ? done : undefined}
        aria-valuetext={text}
        className="h-2 w-20 shrink-0 overflow-hidden rounded-full bg-secondary"
      >
        <div className="h-full bg-primary transition-[width]" style={{ width: `${percent}%` }} />
      </div>
      <span className="whitespace-nowrap text-xs text-muted-foreground">{text}</span>
    </div>
  );
}

type Action = 'cancel' | 'pause' | 'resume';

/** The call each action makes, for the button and for "show the API call". */
function actionCall(job: JobRow, action: Action): ApiCall {
  if (job.type === 'maps-scrape')
    return {
      operationId: 'cancelJob',
      method: 'POST',
      path: '/api/v1/dashboard/client/jobs/{job_id}/cancel',
      pathParams: { job_id: job.id },
    };
  const operationId = (
    { cancel: 'cancelResearchJob', pause: 'pauseResearchJob', resume: 'resumeResearchJob' } as const
  )[action];
  return {
    operationId,
    method: 'POST',
    path: `/api/v1/dashboard/client/research/{research_id}/${action}`,
    pathParams: { research_id: job.id },
  };
}

async function perform(job: JobRow, action: Action): Promise<JobRow> {
  if (job.type === 'maps-scrape')
    return rowOf(
      await unwrap(api.POST('/api/v1/dashboard/client/jobs/{job_id}/cancel', { params: { path: { job_id: job.id } } })),
    );
  const path = { research_id: job.id };
  switch (action) {
    case 'pause':
      return rowOf(
        await unwrap(api.POST('/api/v1/dashboard/client/research/{research_id}/pause', { params: { path } })),
      );
    case 'resume':
      return rowOf(
        await unwrap(api.POST('/api/v1/dashboard/client/research/{research_id}/resume', { params: { path } })),
      );
    default:
      return rowOf(
        await unwrap(api.POST('/api/v1/dashboard/client/research/{research_id}/cancel', { params: { path } })),
      );
  }
}

const LABELS: Record<Action, { text: string; done: string; icon: typeof Ban }> = {
  cancel: { text: 'Cancel job', done: 'Job cancelled', icon: Ban },
  pause: { text: 'Pause', done: 'Job paused', icon: Pause },
  resume: { text: 'Resume', done: 'Job resumed', icon: Play },
};

/**
 * What can be done to a job in its state: cancel (both types, until it ends), pause and resume (research only, the
 * operations that exist), each beside its API call.
 */
export function JobActions({ job }: { job: JobRow }) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: (action: Action) => perform(job, action),
    onSuccess: (updated, action) => {
      toast.success(LABELS[action].done);
      queryClient.setQueryData(['jobs', 'one', job.type, job.id], (old: JobRow | undefined) => ({
        ...updated,
        temporal_run_url: old?.temporal_run_url,
      }));
      void queryClient.invalidateQueries({ queryKey: ['jobs'] });
      void queryClient.invalidateQueries({ queryKey: ['usage'] });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const actions: Action[] = [];
  if (job.type === 'research' && job.status === 'running') actions.push('pause');
  if (job.type === 'research' && job.status === 'paused') actions.push('resume');
  if (['queued', 'processing', 'running', 'paused'].includes(job.status)) actions.push('cancel');
  if (!actions.length) return null;
  return (
    <div className="flex flex-wrap items-center gap-2">
      {actions.map((action) => {
        const { text, icon: Icon } = LABELS[action];
        return (
          <span key={action} className="inline-flex items-center gap-1">
            <Button
              variant={action === 'cancel' ? 'destructive' : 'outline'}
              size="sm"
              disabled={mutation.isPending}
              onClick={() => mutation.mutate(action)}
            >
              <Icon aria-hidden /> {text}
            </Button>
            <ApiCallButton call={actionCall(job, action)} />
          </span>
        );
      })}
    </div>
  );
}
