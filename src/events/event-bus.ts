import type Redis from 'ioredis';

export const JOB_EVENTS = ['job.queued', 'job.started', 'job.completed', 'job.failed'] as const;
export type JobEventName = (typeof JOB_EVENTS)[number];
/** What a watch's run found new (src/watches): an event of the run's job too, so it carries the job's fields. */
export const WATCH_EVENTS = ['watch.new_leads'] as const;
export type WatchEventName = (typeof WATCH_EVENTS)[number];
/** Every event the bus carries to the event stream and to webhooks. */
export type EventName = JobEventName | WatchEventName;

export interface JobEventData {
  job_id: string;
  job_type: 'maps-scrape' | 'research';
  status: string;
  client_id: string;
  occurred_at: string;
  processing_time?: number;
  results_count?: number;
  error?: string;
  [key: string]: unknown;
}

/** One event as streamed: `id` is its Redis stream id in the client's stream. */
export interface JobEvent {
  id: string;
  event: EventName;
  data: JobEventData;
}

/** What travels on the pub/sub channel: the event with its id in the client's stream and in the all-clients stream. */
export interface Broadcast {
  id: string;
  all_id: string;
  event: EventName;
  data: string;
}

export interface EventBusOptions {
  /** Approximate number of events kept per client stream (XADD MAXLEN ~). */
  retention: number;
  /** How long an idle stream is kept, and how far back a replay reaches. */
  windowSeconds: number;
}

// Appends to the client's stream and the all-clients stream, refreshes their expiry and broadcasts,
// atomically, once per job and event: KEYS[3] remembers the ids of the first publish for the replay window,
// and a repeat (an activity retried after its bookkeeping failed, a command resent on reconnect) answers
// them without appending. The marker and the entries are written by one script, so Redis keeps both or
// neither.
const PUBLISH = `
local seen = redis.call('GET', KEYS[3])
if seen then return cjson.decode(seen) end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'event', ARGV[2], 'data', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
local all = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'event', ARGV[2], 'data', ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('SET', KEYS[3], cjson.encode({id, all}), 'EX', ARGV[4])
redis.call('PUBLISH', ARGV[6], cjson.encode({id = id, all_id = all, event = ARGV[2], data = ARGV[3]}))
return {id, all}
`;

export const streamKey = (clientId: string | null) => (clientId ? `events:client:${clientId}` : 'events:all');
const publishedKey = (data: JobEventData, event: EventName) =>
  `events:published:${data.client_id}:${data.job_id}:${event}`;
/** Pub/sub channels are not prefixed by ioredis, so the key prefix is added here to keep deployments apart. */
export const channelName = (redis: Redis) => `${redis.options.keyPrefix ?? ''}events:broadcast`;

const STREAM_ID = /^\d{1,20}-\d{1,20}$/;
export const isStreamId = (id: string) => STREAM_ID.test(id);

/**
 * Job (and watch) events in Redis: a capped stream per client (and one for all clients, for super_admins) kept
 * for Last-Event-ID replay, plus a pub/sub broadcast that every API instance fans out to its open
 * streams. Published by activities (and by the API for job.queued), never by workflow code.
 */
export function createEventBus(redis: Redis, opts: EventBusOptions) {
  return {
    /** Publishes a job's event, or answers the id it was published under already (within the window). */
    async publish(event: EventName, data: JobEventData): Promise<JobEvent> {
      const payload = JSON.stringify(data);
      const [id] = (await redis.eval(
        PUBLISH,
        3,
        streamKey(data.client_id),
        streamKey(null),
        publishedKey(data, event),
        opts.retention,
        event,
        payload,
        opts.windowSeconds,
        opts.retention * 10,
        channelName(redis),
      )) as [string, string];
      return { id, event, data };
    },

    /** The id of the newest retained event (`0-0` when there is none): where a new subscriber starts. */
    async latestId(clientId: string | null): Promise<string> {
      const [row] = await redis.xrevrange(streamKey(clientId), '+', '-', 'COUNT', 1);
      return row?.[0] ?? '0-0';
    },

    /** Events after `lastId` (exclusive) still inside the replay window, oldest first. */
    async replay(clientId: string | null, lastId: string): Promise<JobEvent[]> {
      if (!isStreamId(lastId)) return [];
      const oldest = Date.now() - opts.windowSeconds * 1000;
      const rows = await redis.xrange(streamKey(clientId), `(${lastId}`, '+');
      return rows
        .filter(([id]) => Number(id.split('-')[0]) >= oldest)
        .map(([id, fields]) => ({ id, event: fields[1] as EventName, data: JSON.parse(fields[3]) as JobEventData }));
    },
  };
}

export type EventBus = ReturnType<typeof createEventBus>;

/** The bus with the configured retention, as the API and the workers build it. */
export const eventBusFor = (
  redis: Redis,
  config: { EVENT_RETENTION_PER_CLIENT: number; EVENT_REPLAY_WINDOW_SECONDS: number },
) =>
  createEventBus(redis, {
    retention: config.EVENT_RETENTION_PER_CLIENT,
    windowSeconds: config.EVENT_REPLAY_WINDOW_SECONDS,
  });
