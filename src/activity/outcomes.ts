import { userDirectory } from '../users/user-directory';
import { ActivityEventModel } from './activity-event.model';
import type { ActivityActor, ActivityRecorder } from './recorder';

/** What an outcome records of a job (the jobs area's record, as the job's run passes it). */
export interface FinishedJob {
  _id: string;
  client_id: string;
  created_by?: string | null;
  /** The submitting request's actor, kept on the job since it was submitted (null: a watch's run, an older record). */
  submitted_by?: { id: string; kind: string; name?: string | null; role: string } | null;
  type: string;
  status: string;
  params?: unknown;
  completed_at?: Date | null;
}

/**
 * Who a job's outcome is credited to: whoever submitted it (kept on the job; for an older record, the actor of its
 * first recorded event), else the user who created it, else the client itself. The log is not read for a job that
 * names its submitter: the devstack's FerretDB answers that read only by decoding every event of every client
 * (~80 ms a thousand events), on each job's end.
 */
async function jobActor(
  job: Pick<FinishedJob, '_id' | 'client_id' | 'created_by' | 'submitted_by'>,
): Promise<ActivityActor> {
  if (job.submitted_by) {
    const { id, kind, name, role } = job.submitted_by; // as actorOf named the submitting request's caller
    return { id, kind: kind as ActivityActor['kind'], name: name ?? null, role: role as ActivityActor['role'] };
  }
  const submitted = await ActivityEventModel.findOne(
    { client_id: job.client_id, subject_id: job._id },
    { actor_id: 1, actor_kind: 1, actor_name: 1, role: 1 },
  )
    .sort({ _id: 1 })
    .lean<{
      actor_id: string;
      actor_kind: ActivityActor['kind'];
      actor_name: string | null;
      role: ActivityActor['role'];
    }>();
  if (submitted)
    return { id: submitted.actor_id, kind: submitted.actor_kind, name: submitted.actor_name, role: submitted.role };
  if (job.created_by) {
    const user = await userDirectory.actor(job.created_by);
    if (user) return { id: job.created_by, kind: 'user', name: user.email, role: user.role as ActivityActor['role'] };
  }
  return { id: job.client_id, kind: 'client', name: null, role: 'client_user' };
}

const jobLabel = (job: Pick<FinishedJob, 'type' | 'params'>) => {
  const p = (job.params ?? {}) as {
    query?: string;
    country_code?: string;
    companies?: unknown[];
    source_job_id?: string;
  };
  if (job.type === 'maps-scrape') return `${p.query ?? 'maps scrape'}${p.country_code ? ` (${p.country_code})` : ''}`;
  return p.companies ? `${p.companies.length} companies` : `research of job ${p.source_job_id ?? ''}`.trim();
};

/**
 * Records a finished job once (keyed by job and status, at its completion time, so a retried
 * activity records it again under the same id): `job.completed` ships a job or research, `job.failed`
 * and `job.cancelled` count for anomalies.
 */
export async function recordJobOutcome(recorder: ActivityRecorder, job: FinishedJob | null): Promise<void> {
  if (!job || !['completed', 'failed', 'cancelled'].includes(job.status)) return;
  const shipped =
    job.status === 'completed' ? (job.type === 'research' ? 'research_completed' : 'jobs_completed') : null;
  await recorder.record({
    clientId: job.client_id,
    actor: await jobActor(job),
    action: `job.${job.status}`,
    subject: { kind: 'job', id: job._id },
    shipped,
    label: jobLabel(job),
    at: job.completed_at ?? new Date(),
    key: `job-${job._id}-${job.status}`,
  });
}

/** A login is activity of its user (a super_admin without a client has no client log to go to). */
export async function recordLogin(
  recorder: ActivityRecorder,
  user: { user_id: string; email: string; role: ActivityActor['role']; client_id: string | null },
) {
  if (!user.client_id) return;
  await recorder.record({
    clientId: user.client_id,
    actor: { id: user.user_id, kind: 'user', name: user.email, role: user.role },
    action: 'auth.login',
    subject: { kind: 'user', id: user.user_id },
  });
}
