import type { Schemas } from '../lib/contract-types';
import { iso } from '../lib/ids';
import type { JobEventData, JobEventName } from '../events/event-bus';
import type { JobDoc } from './job.model';
import type { MapsJobParams } from './job.model';

/** Seconds from start to the end (or to now while running), paused time left out. */
export function processingTime(doc: Pick<JobDoc, 'started_at' | 'completed_at' | 'paused_ms'>): number | null {
  if (!doc.started_at || !doc.completed_at) return null;
  const ms = doc.completed_at.getTime() - doc.started_at.getTime() - (doc.paused_ms ?? 0);
  return Math.max(0, Math.round(ms) / 1000);
}

/** What every job shows; the record keeps the status as a string, which the job's kind narrows below. */
const common = (d: JobDoc) => ({
  client_id: d.client_id,
  progress: { done: d.progress?.done ?? 0, total: d.progress?.total ?? 0 },
  message: d.message ?? null,
  results_count: d.results_count ?? 0,
  error: d.error ?? null,
  webhook_url: d.webhook_url ?? null,
  watch_id: d.watch_id ?? null,
  created_at: iso(d.created_at),
  started_at: iso(d.started_at),
});

/** A maps-scrape job as the API shows it (schema Job). */
export function toJob(d: JobDoc): Schemas['Job'] {
  const p = d.params as MapsJobParams;
  return {
    job_id: d._id,
    type: 'maps-scrape', // only maps-scrape records are read as this view
    status: d.status as Schemas['Job']['status'],
    ...common(d),
    query: p.query,
    country_code: p.country_code,
    region_codes: p.region_codes ?? [],
    max_locations: p.max_locations ?? null,
    max_results: p.max_results ?? null,
    language: p.language ?? null,
    completed_at: iso(d.completed_at),
    processing_time: processingTime(d),
  };
}

/** A research job as the API shows it (schema ResearchJob). */
export function toResearchJob(d: JobDoc): Schemas['ResearchJob'] {
  const p = d.params as Partial<Pick<Schemas['ResearchJob'], 'source_job_id'>>; // or the companies it was given
  return {
    research_id: d._id,
    status: d.status as Schemas['ResearchJob']['status'],
    ...common(d),
    source_job_id: p.source_job_id ?? null,
    companies_total: d.companies_total ?? 0,
    paused_at: iso(d.paused_at),
    completed_at: iso(d.completed_at),
    processing_time: processingTime(d),
  };
}

/** The data of a job event: {job_id, job_type, status, client_id, occurred_at, ...}. */
export function eventData(d: JobDoc, name: JobEventName, occurredAt = new Date()): JobEventData {
  const data: JobEventData = {
    job_id: d._id,
    job_type: d.type as JobEventData['job_type'],
    status: d.status,
    client_id: d.client_id,
    occurred_at: occurredAt.toISOString(),
  };
  if (name === 'job.completed')
    Object.assign(data, { processing_time: processingTime(d) ?? 0, results_count: d.results_count ?? 0 });
  if (name === 'job.failed')
    Object.assign(data, {
      error: d.error ?? (d.status === 'cancelled' ? 'Cancelled by user' : 'failed'),
      results_count: d.results_count ?? 0,
    });
  return data;
}
