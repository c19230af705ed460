export { createLeadServiceClient, type LeadServiceClient, type LeadServiceClientOptions } from './client';
export { LeadServiceError, unwrap } from './errors';
export { LeadServiceUnreachable, asUnreachable, type UnreachableReason } from './network-errors';
export { IDEMPOTENCY_HEADER, newIdempotencyKey, retryingFetch, type RetryOptions } from './retries';
export {
  STREAM_EVENTS,
  isJobEvent,
  isWatchEvent,
  type EventsOptions,
  type JobEventFrame,
  type StreamFrame,
  type WatchEventFrame,
} from './events';
export {
  WatchRunTimeout,
  type WaitForRunOptions,
  type Watch,
  type WatchBody,
  type WatchChanges,
  type WatchRun,
} from './watches';
export {
  FINAL_JOB_STATUSES,
  JobWaitTimeout,
  isFinal,
  type JobKind,
  type JobState,
  type MapsJob,
  type ResearchJob,
  type WaitForJobOptions,
} from './jobs';
export {
  AccessRequestRefused,
  type AccessRequest,
  type AccessRequestBody,
  type AccessRequestReceipt,
  type RequestAccessOptions,
} from './access';
export type {
  FlagChange,
  FlagsBatchResult,
  ListedResource,
  ResourcePage,
  ResourceType,
  SyncResourcesOptions,
} from './resources';
export type { components, operations, paths } from './generated/openapi';
