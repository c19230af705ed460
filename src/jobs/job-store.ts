import type { EventBus, JobEvent, JobEventName } from '../events/event-bus';
import { JobModel, isFinal, type JobDoc } from './job.model';
import { eventData } from './job.views';

/**
 * The state changes a job's workflow makes, through activities. Each is conditional on the state it
 * expects, so a retried activity, a late activity after a cancel, or a pause racing a finish cannot
 * move a job backwards or out of a final state.
 */
export async function loadJob(jobId: string, clientId: string): Promise<JobDoc | null> {
  return JobModel.findOne({ _id: jobId, client_id: clientId }).lean<JobDoc>();
}

/** queued → running status; answers the job as it is now and whether this call started it. */
export async function startJob(jobId: string, clientId: string, runningStatus: 'processing' | 'running', set: Record<string, unknown> = {}) {
  const started = await JobModel.findOneAndUpdate(
    { _id: jobId, client_id: clientId, status: 'queued' },
    { $set: { status: runningStatus, started_at: new Date(), ...set } },
    { new: true },
  ).lean<JobDoc>();
  return { doc: started ?? (await loadJob(jobId, clientId)), started: Boolean(started) };
}

export async function updateJob(jobId: string, clientId: string, set: Record<string, unknown>): Promise<void> {
  await JobModel.updateOne({ _id: jobId, client_id: clientId, status: { $nin: ['completed', 'failed', 'cancelled'] } }, { $set: set });
}

/**
 * Moves a job to a final state (unless it is in one already: a cancel by the API wins over a late
 * completion) and publishes its final event once: job.completed, or job.failed for failed and
 * cancelled jobs.
 */
export async function finishJob(
  bus: EventBus, jobId: string, clientId: string, status: 'completed' | 'failed' | 'cancelled', extra: { error?: string; message?: string; results_count?: number } = {},
): Promise<JobEvent | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const doc = await loadJob(jobId, clientId);
    if (!doc) return null;
    if (isFinal(doc.status)) break;
    const now = new Date();
    const pausedMs = doc.paused_at ? now.getTime() - doc.paused_at.getTime() : 0;
    const set: Record<string, unknown> = { status, completed_at: now, paused_at: null, paused_ms: (doc.paused_ms ?? 0) + pausedMs };
    if (extra.error !== undefined) set.error = extra.error;
    if (extra.results_count !== undefined) set.results_count = extra.results_count;
    set.message = extra.message ?? (status === 'cancelled' ? 'Cancelled by user' : status === 'failed' ? 'Failed' : 'Completed');
    const res = await JobModel.updateOne({ _id: jobId, client_id: clientId, status: doc.status, control_seq: doc.control_seq }, { $set: set });
    if (res.modifiedCount === 1) break;
  }
  const doc = await loadJob(jobId, clientId);
  if (!doc || !isFinal(doc.status)) return null;
  return publishOnce(bus, doc, doc.status === 'completed' ? 'job.completed' : 'job.failed', doc.completed_at ?? new Date());
}

/**
 * Publishes a job event unless it was published already (at least once: a crash between the
 * publish and the bookkeeping publishes it again on the retry, never zero times).
 */
export async function publishOnce(bus: EventBus, doc: JobDoc, name: JobEventName, at = new Date()): Promise<JobEvent | null> {
  if ((doc.events_sent ?? []).includes(name)) return null;
  const event = await bus.publish(name, eventData(doc, name, at));
  await JobModel.updateOne({ _id: doc._id, client_id: doc.client_id }, { $addToSet: { events_sent: name } });
  return event;
}
