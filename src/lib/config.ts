import path from 'node:path';
import fs from 'node:fs';
import ConnectionString from 'mongodb-connection-string-url';
import { z } from 'zod';
import { CACHE_DIR } from './cache-dir';

/**
 * Every setting the service reads from the environment, validated once at start-up.
 * An unset engine URL means "use the devstack" (docs/decisions.md §1); a configured URL always wins.
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => ['true', '1', 'yes'].includes(v));
const port = z.coerce.number().int().min(0, 'must be 0..65535').max(65535, 'must be 0..65535');
const positiveInt = z.coerce.number().int().positive('must be a positive integer');
const url = z.string().url('must be a URL');
/** Any URI the MongoDB driver accepts: one host or several (a replica set), mongodb:// or mongodb+srv://. */
const mongoUri = z.string().refine(
  (value) => {
    try {
      return new ConnectionString(value).hosts.length > 0;
    } catch {
      return false;
    }
  },
  { message: 'must be a MongoDB connection string (mongodb://host1,host2/?replicaSet=rs0 or mongodb+srv://...)' },
);
/** A PEM given inline, or the path of a file holding one. */
const pem = z.string().refine((value) => value.trimStart().startsWith('-----BEGIN') || fs.existsSync(value), {
  message: 'must be PEM text or the path of a readable PEM file',
});
/** A lifetime in days; 0 means kept for good. */
const days = z.coerce.number().int().min(0, 'must be 0 (keep) or a number of days').max(36_500);
const sourceUrl = z.union([z.literal('none'), url], { message: 'must be a URL or none' });

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: port.default(8080),
  PUBLIC_BASE_URL: url.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JSON_BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  /**
   * The HTTP edge's bound (docs/performance.md, "Load"): past this many requests in progress, or while the event
   * loop stalled longer than HTTP_MAX_EVENT_LOOP_DELAY_MS in the last half second, a new request is refused at once
   * with 503 and Retry-After (HTTP_SHED_RETRY_AFTER_SECONDS); 0 turns a bound off. Health probes and open event
   * streams are never refused. Each address gets its share of it (docs/security.md, "Addresses").
   */
  HTTP_MAX_CONCURRENT_REQUESTS: z.coerce.number().int().min(0).default(64),
  HTTP_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(1_000),
  HTTP_SHED_RETRY_AFTER_SECONDS: positiveInt.default(1),
  /**
   * Requests from one address (clientAddress) whose bodies may be arriving at once, none of them holding a slot of
   * the bound above meanwhile (docs/security.md, "Slow and stalled clients"); past it, 503 and the connection is
   * closed. 0: no bound.
   */
  HTTP_MAX_BODIES_ARRIVING_PER_ADDRESS: z.coerce.number().int().min(0).default(16),
  /**
   * Read deadlines (docs/security.md, "Slow and stalled clients"): a request's head must arrive within
   * HTTP_HEADERS_TIMEOUT_MS of its first byte (of the connection, for its first request), the whole request, body
   * included, within HTTP_REQUEST_TIMEOUT_MS; past either, 408 and the connection is closed. The answer is not
   * timed (event streams, slow handlers). Headers are small, so 10 s covers any line; 60 s takes the largest body
   * the contract allows (a 7.1 MB logo) over a 1 Mbit/s uplink.
   */
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.default(60_000),
  VALIDATE_RESPONSES: bool.optional(),
  /**
   * Before the API listens, compile every operation's request validator and index the place dataset, which a fresh
   * process otherwise does on the first requests that need them (hundreds of milliseconds of them at once, while
   * the load that just arrived waits: docs/performance.md, "Load"). About 4 s of start on 2 CPUs; the tests, which
   * start a service per file, turn it off.
   */
  WARM_UP_ON_START: bool.default(true),

  DATA_DIR: z.string().default('.data'),
  /**
   * The built console served under /console (index.html and assets/): console/dist by default, which `npm start`
   * builds when it is missing or older than its sources. Another directory is served as it is (a build made
   * elsewhere; the tests' fixtures).
   */
  CONSOLE_DIST_DIR: z.string().min(1).optional(),
  CACHE_DIR: z.string().default(CACHE_DIR),
  DEVSTACK: z.enum(['auto', 'off']).default('auto'),

  MONGODB_URI: mongoUri.optional(),
  MONGODB_DB: z
    .string()
    .regex(/^[\w-]{1,60}$/, 'must be 1..60 letters, digits, _ or -')
    .default('lead_service'),
  /**
   * The document engine's connection pool: at most this many connections, and an operation waits at most
   * MONGO_WAIT_QUEUE_TIMEOUT_MS for one before it fails (a 503 with Retry-After), so a saturated engine
   * refuses work instead of queueing it without bound (docs/performance.md, "Load").
   */
  MONGO_MAX_POOL_SIZE: positiveInt.default(20),
  MONGO_WAIT_QUEUE_TIMEOUT_MS: positiveInt.default(2_000),
  REDIS_URL: url.optional(),
  REDIS_KEY_PREFIX: z.string().default('lead:'),
  /**
   * Redis Sentinel: the sentinels as host:port pairs separated by commas; the primary is the one they name
   * REDIS_SENTINEL_NAME, and REDIS_URL gives only its password, database and TLS (its host is not used).
   */
  REDIS_SENTINELS: z
    .string()
    .transform((v) => v.split(',').map((pair) => pair.trim()))
    .pipe(z.array(z.string().regex(/^[^\s:]+:\d+$/, 'must be host:port pairs separated by commas')).min(1))
    .transform((pairs) =>
      pairs.map((pair) => {
        const at = pair.lastIndexOf(':');
        return { host: pair.slice(0, at), port: Number(pair.slice(at + 1)) };
      }),
    )
    .optional(),
  REDIS_SENTINEL_NAME: z.string().min(1).default('mymaster'),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** The interactive task queue: messages, approvals, pin holds, callbacks, hooks, digests (docs/operations.md). */
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('lead-service'),
  /** The bulk task queue: maps-scrape and research jobs, which run for minutes. Default: TEMPORAL_TASK_QUEUE-bulk. */
  TEMPORAL_BULK_TASK_QUEUE: z.string().min(1).optional(),
  /**
   * Whether runs carry the service's search attributes (LeadClientId, LeadJobType, LeadBrandId), registered at start
   * where Temporal allows it (docs/operations.md, "Finding runs"); false: none set or registered.
   */
  TEMPORAL_SEARCH_ATTRIBUTES: bool.default(true),
  /** Which task queues a worker process polls, so each can be scaled apart: interactive, bulk, or both. */
  WORKER_TASK_QUEUES: z
    .string()
    .transform((v) => v.split(',').map((q) => q.trim()))
    .pipe(z.array(z.enum(['interactive', 'bulk'])).min(1, 'must name interactive, bulk or both'))
    .default(['interactive', 'bulk']),
  TEMPORAL_UI_URL: url.optional(),
  /**
   * Whether the payload codec reads payloads that are not encrypted: off, an unencrypted input, signal or Update
   * (which anyone reaching Temporal's frontend could send) fails its decode. Only for the migration of histories
   * written before payloads were encrypted, until their runs have closed (docs/upgrades.md).
   */
  TEMPORAL_ACCEPT_PLAINTEXT_PAYLOADS: bool.default(false),
  /** mTLS to a Temporal cluster (Temporal Cloud's certificates, a self-hosted TLS frontend): both or neither. */
  TEMPORAL_TLS_CERT: pem.optional(),
  TEMPORAL_TLS_KEY: pem.optional(),
  /** The CA that signed the cluster's server certificate, when not one the system trusts. */
  TEMPORAL_TLS_CA: pem.optional(),
  /** The name the server certificate is for, when it differs from the address's host. */
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** Temporal Cloud's API key authentication (TLS is then on). */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  RUN_WORKER: bool.optional(),
  /**
   * With RUN_WORKER, run the worker on the API process's own event loop instead of in a process of its own that the
   * API starts and stops (the default: API and worker each get a core, as in production; the tests run it inside).
   */
  WORKER_IN_API_PROCESS: bool.default(false),

  CREDENTIALS_KEY: z
    .string()
    .regex(/^([0-9a-f]{64}|[A-Z0-9+/]{43}=)$/i, 'must be 32 bytes as 64 hex digits or base64')
    .optional(),
  /** Keys CREDENTIALS_KEY replaced, comma-separated: values sealed under them still open (key rotation). */
  CREDENTIALS_KEY_PREVIOUS: z
    .string()
    .regex(
      /^\s*([0-9a-f]{64}|[A-Z0-9+/]{43}=)(\s*,\s*([0-9a-f]{64}|[A-Z0-9+/]{43}=))*\s*$/i,
      'must be 32-byte keys (64 hex digits or base64) separated by commas',
    )
    .optional(),
  SESSION_TTL_SECONDS: positiveInt.default(12 * 3600),
  /** Failed logins allowed per account, and per account and address, in one window (then 429 until it ends). */
  LOGIN_MAX_FAILURES: positiveInt.default(10),
  LOGIN_FAILURE_WINDOW_SECONDS: positiveInt.default(15 * 60),
  /** Distinct accounts that may fail from one address in that window before it may try no further account. */
  LOGIN_ADDRESS_MAX_ACCOUNTS: positiveInt.default(20),
  /**
   * How long a device (its `lead_device` cookie) is remembered after its last login: from it, only its own failures
   * count (docs/security.md, "Login").
   */
  LOGIN_DEVICE_TTL_SECONDS: positiveInt.default(180 * 86_400),
  /** Devices remembered per user, those of the most recent logins (a client that keeps no cookie makes one each time). */
  LOGIN_DEVICES_PER_USER: positiveInt.default(20),
  /**
   * Express's `trust proxy`: off by default (the peer's address is the client's). Behind a reverse proxy,
   * `true`, a number of hops, or addresses and subnets (`loopback`, `10.0.0.0/8`, comma-separated) whose
   * X-Forwarded-For is believed; every per-address limit then counts the client's own address.
   */
  TRUST_PROXY: z
    .string()
    .regex(/^[\w.:/, -]{1,500}$/, 'must be true, false, a number of hops, or addresses and subnets separated by commas')
    .default('false'),
  PASSWORD_RESET_TTL_SECONDS: positiveInt.default(3600),
  /** "Forgot your password?": reset e-mails per account, and requests per client address, in one hour (then 429). */
  PASSWORD_RESET_REQUESTS_PER_ACCOUNT: positiveInt.default(3),
  PASSWORD_RESET_REQUESTS_PER_ADDRESS: positiveInt.default(10),
  ACCESS_REQUEST_TTL_SECONDS: positiveInt.default(24 * 3600),
  ACCESS_REQUEST_RATE_PER_HOUR: z.coerce.number().int().min(0, 'must be 0 (off) or more').default(10),
  /** How long the answer to a request with an Idempotency-Key is kept to answer its retries (24 hours). */
  IDEMPOTENCY_KEY_TTL_SECONDS: positiveInt.default(24 * 3600),
  /**
   * How long a request with an Idempotency-Key holds its key while it runs (renewed while the process lives): a
   * retry meanwhile answers 409; after a crash the key is free again this long after the last renewal.
   */
  IDEMPOTENCY_LEASE_SECONDS: positiveInt.default(30),
  /**
   * Answers one caller (a credential; on a public operation a resource's token or an address) may have kept at
   * once, and their bytes as stored (sealed): past either, the caller's own oldest answers stop being kept (their
   * retries do the work again), so that no caller can fill Redis and take the guarantee from the others.
   */
  IDEMPOTENCY_MAX_ANSWERS_PER_CALLER: positiveInt.default(10_000),
  IDEMPOTENCY_MAX_BYTES_PER_CALLER: positiveInt.default(16 * 1024 * 1024),
  /** How long confirm-pin holds a name for the end user (24 hours; tests shorten it). */
  PIN_RESERVATION_TTL_SECONDS: positiveInt.default(24 * 3600),
  /** How long the pin_created callback is retried (5xx, timeouts) before delivery gives up. */
  PIN_CALLBACK_RETRY_SECONDS: positiveInt.default(24 * 3600),
  /** First retry interval of the pin_created callback (doubling up to 10 minutes). */
  PIN_CALLBACK_RETRY_INITIAL_MS: positiveInt.default(5_000),
  /** How long signup completion waits for the pin to be written before answering `creating`. */
  PIN_COMPLETE_WAIT_MS: z.coerce.number().int().min(0, 'must be 0 or more').default(3_000),
  /**
   * confirm-pin calls one caller (an agent token) may make in an hour, and signup links one recipient may get in
   * a day.
   */
  CONFIRM_PIN_PER_CALLER_PER_HOUR: positiveInt.default(30),
  CONFIRM_PIN_PER_RECIPIENT_PER_DAY: positiveInt.default(3),
  /** How long confirm-pin waits for the channel provider to take the signup link (a rejected number is 422). */
  SIGNUP_LINK_SEND_WAIT_MS: positiveInt.default(10_000),
  /**
   * Signup-token signing keys, `kid:secret` pairs separated by commas (secret: 32+ bytes as hex or base64);
   * the first signs, all verify, so a key can be rotated. Unset: one key derived from CREDENTIALS_KEY.
   */
  SIGNUP_TOKEN_KEYS: z
    .string()
    .regex(
      /^\s*[\w-]{1,32}:[\w+/=-]{43,}(\s*,\s*[\w-]{1,32}:[\w+/=-]{43,})*\s*$/,
      'must be kid:secret pairs separated by commas (secrets of 32+ bytes)',
    )
    .optional(),
  BOOTSTRAP_ADMIN_EMAIL: z.string().email('must be an e-mail address').optional(),
  BOOTSTRAP_ADMIN_PASSWORD: z.string().min(10, 'must be at least 10 characters').optional(),

  EMAIL_FROM: z.string().email('must be an e-mail address').default('no-reply@lead-service.local'),
  SENDGRID_API_KEY: z.string().min(1).optional(),
  SENDGRID_BASE_URL: url.optional(),
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  TWILIO_FROM: z.string().min(1).optional(),
  TWILIO_BASE_URL: url.optional(),

  S3_BUCKET: z.string().min(1).optional(),
  S3_ENDPOINT: url.optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(true),

  MEILISEARCH_URL: url.optional(),
  MEILISEARCH_API_KEY: z.string().optional(),
  /** The pin index's name in Meilisearch (tests give each run its own). */
  MEILISEARCH_INDEX: z
    .string()
    .regex(/^[\w-]{1,100}$/, 'must be 1..100 letters, digits, _ or -')
    .default('pins'),
  MEILISEARCH_TIMEOUT_MS: positiveInt.default(5_000),

  SSE_HEARTBEAT_MS: positiveInt.default(30_000),
  /** Event streams one client may hold open at once, across every API process (the next one is 429). */
  SSE_MAX_STREAMS_PER_CLIENT: positiveInt.default(20),
  /** Job events kept per client in Redis for Last-Event-ID replay (approximate cap of the stream). */
  EVENT_RETENTION_PER_CLIENT: positiveInt.default(1000),
  /** How far back a Last-Event-ID replay reaches (and how long an idle client's event stream is kept). */
  EVENT_REPLAY_WINDOW_SECONDS: positiveInt.default(3600),
  // Retry policy of the job activities (429/5xx from providers): first interval, attempts, liveness.
  JOB_RETRY_INITIAL_MS: positiveInt.default(1000),
  JOB_RETRY_MAX_ATTEMPTS: positiveInt.default(8),
  JOB_HEARTBEAT_TIMEOUT_MS: positiveInt.default(60_000),
  /**
   * The bound on work accepted but not done (docs/performance.md, "Load"): while this many jobs of all tenants are
   * queued or running, a submit is refused with 503 and Retry-After (JOB_BACKLOG_RETRY_AFTER_SECONDS) before
   * anything is recorded; 0 turns it off. The default fits the local default on 2 CPUs, where a job of the sandbox
   * finishes in under a second and about 2 finish a second beside the reads: at most about 10 s of work waits.
   * Size it to what the deployment's workers finish in the wait its clients accept.
   */
  JOB_MAX_UNFINISHED: z.coerce.number().int().min(0).default(20),
  JOB_BACKLOG_RETRY_AFTER_SECONDS: positiveInt.default(5),
  /**
   * Each client's own bounds on jobs (docs/security.md, "Jobs per tenant"), unless a super_admin sets the client's
   * own (PATCH /dashboard/admin/clients/{client_id}, job_limits): unfinished jobs at once (queued, running or
   * paused), jobs per UTC day and per UTC calendar month (watch runs included), and caps on a maps-scrape job's
   * max_locations and max_results. 0: no bound of the client's own. Past one, a submit answers 429 with a code.
   * JOB_CLIENT_MAX_UNFINISHED must stay below JOB_MAX_UNFINISHED, so that no tenant alone fills the deployment's.
   */
  JOB_CLIENT_MAX_UNFINISHED: z.coerce.number().int().min(0).max(1_000_000_000).default(10),
  JOB_CLIENT_PER_DAY: z.coerce.number().int().min(0).max(1_000_000_000).default(1000),
  JOB_CLIENT_PER_MONTH: z.coerce.number().int().min(0).max(1_000_000_000).default(20_000),
  JOB_CLIENT_MAX_LOCATIONS: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  JOB_CLIENT_MAX_RESULTS: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  /**
   * The last part of JOB_MAX_UNFINISHED (in percent, rounded up) kept for tenants under their fair share: while the
   * deployment's unfinished jobs are within it of the bound, a client holding its share of the bound or more
   * (JOB_MAX_UNFINISHED divided among the clients with unfinished jobs and one more) is refused with 503 and code
   * job_fair_share. 0 turns the rule off.
   */
  JOB_FAIR_SHARE_RESERVE_PERCENT: z.coerce.number().int().min(0).max(100).default(25),
  /** Bulk writes of job work one worker process runs at a time (the rest queue; provider calls do not). */
  JOB_WRITE_CONCURRENCY: positiveInt.default(6),
  /** Activities one worker process runs at once (Temporal's default); the rest wait on the task queue. */
  WORKER_MAX_ACTIVITIES: positiveInt.default(100),
  /** The workflows bundled ahead (the Docker image does it at build time); unset, the worker bundles at start. */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  /** A file the worker touches while it polls Temporal, for a container health check (unset: none). */
  WORKER_HEALTH_FILE: z.string().min(1).optional(),
  /** Workflow tasks one worker process runs at once (Temporal's default). */
  WORKER_MAX_WORKFLOW_TASKS: positiveInt.default(40),
  /** The same two for the bulk task queue's jobs, apart from the interactive queue's. */
  WORKER_BULK_MAX_ACTIVITIES: positiveInt.default(20),
  WORKER_BULK_MAX_WORKFLOW_TASKS: positiveInt.default(10),
  /** Watches one client may have at once (one more is 409), and how often at most one may run (docs/watches.md). */
  WATCHES_MAX_PER_CLIENT: positiveInt.default(20),
  WATCH_MIN_INTERVAL_SECONDS: positiveInt.min(60, 'must be at least 60').default(3600),
  /**
   * How soon after a watch's last run or trigger it may be triggered again (triggerWatch; 429 watch_trigger_too_soon
   * before); unset: WATCH_MIN_INTERVAL_SECONDS, so running a watch now never runs it more often than a schedule
   * may. 0 turns the spacing off (the tests that run one watch several times in a row).
   */
  WATCH_TRIGGER_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(0).optional(),
  /** How late a watch's missed run may still start, unless the watch sets its own (60 s to 7 days). */
  WATCH_CATCHUP_WINDOW_SECONDS: positiveInt
    .min(60, 'must be 60..604800')
    .max(604_800, 'must be 60..604800')
    .default(86_400),
  /** Feed what jobs write into the IDAP search index (a follow-up workflow per job). */
  JOB_INDEX_RESULTS: bool.default(true),
  /**
   * With JOB_INDEX_RESULTS, a maps-scrape job also indexes what each location stores as it goes, so that its
   * results are searchable at job.completed (src/jobs/index-feed.ts); false leaves them to the follow-up alone.
   */
  JOB_INDEX_DURING_JOB: bool.default(true),
  /**
   * How far behind now a resource sync reads (docs/idap.md, "Why a sync loses nothing"): longer than a resource
   * write takes from its modified_at stamp to its acknowledgement (bounded by RESOURCE_WRITE_BUDGET_MS, 1 s) plus
   * the clock skew between the processes that write and the ones that read.
   */
  IDAP_SYNC_SETTLE_MS: z.coerce
    .number()
    .int()
    .min(2000, 'must be at least 2000 (the resource write budget of 1000 ms, and room for clock skew)')
    .max(600_000)
    .default(5000),
  /**
   * Each process's IDAP read cache (docs/idap.md, "The cache's bounds"): the units it holds over all tenants (a
   * resource 10, a forward entry its postings, a list entry or a term 1; about 150 bytes a unit), the units one
   * tenant's entries hold, and the entries each vocabulary map of a tenant's type holds (terms' frequencies, terms'
   * lists, prefixes' completions).
   */
  IDAP_CACHE_MAX_UNITS: positiveInt.default(500_000),
  IDAP_CACHE_TENANT_MAX_UNITS: positiveInt.default(250_000),
  IDAP_CACHE_MAX_TERMS: positiveInt.default(4096),
  /**
   * Whether webhooks, pin callbacks and deploy hooks may reach loopback, private, link-local, metadata, NAT64 and
   * Teredo addresses (src/lib/outbound.ts). Refused unless set to true, in every environment: a developer's
   * machine sits on networks too. The tests set it (their receivers listen on loopback); production never should.
   */
  OUTBOUND_ALLOW_PRIVATE: bool.optional(),
  /** How long a rotated webhook signing secret keeps signing deliveries beside the new one. */
  WEBHOOK_SECRET_OVERLAP_SECONDS: positiveInt.default(24 * 3600),

  // Upstream providers of the jobs; unset outside production means the in-process sandbox server.
  MAPS_PROVIDER_URL: url.optional(),
  MAPS_PROVIDER_KEY: z.string().min(1).optional(),
  RESEARCH_PROVIDER_URL: url.optional(),
  RESEARCH_PROVIDER_KEY: z.string().min(1).optional(),
  PROVIDER_TIMEOUT_MS: positiveInt.default(15_000),

  // The relays' providers (brands' integration keys); unset outside production means the sandbox server.
  RELAY_MAPS_URL: url.optional(),
  RELAY_PARCEL_TRACKING_URL: url.optional(),
  RELAY_MESSAGING_URL: url.optional(),
  /** A relayed call's time limit, and the largest provider answer relayed (bytes). */
  RELAY_TIMEOUT_MS: positiveInt.default(10_000),
  RELAY_MAX_RESPONSE_BYTES: positiveInt.default(2_097_152),

  /** Analytics sources of the admin reports: a URL (or `none` to switch one off) and its key. */
  PRODUCT_ANALYTICS_URL: sourceUrl.optional(),
  PRODUCT_ANALYTICS_KEY: z.string().min(1).optional(),
  WEB_ANALYTICS_URL: sourceUrl.optional(),
  WEB_ANALYTICS_KEY: z.string().min(1).optional(),
  MOBILE_SUBSCRIPTIONS_URL: sourceUrl.optional(),
  MOBILE_SUBSCRIPTIONS_KEY: z.string().min(1).optional(),
  SOCIAL_ANALYTICS_URL: sourceUrl.optional(),
  SOCIAL_ANALYTICS_KEY: z.string().min(1).optional(),
  SOCIAL_ACCOUNTS: z
    .string()
    // Pair by pair: one pattern for the whole list would let its spaces and handles trade characters (exponential).
    .refine(
      (list) => list.split(',').every((pair) => /^[\w-]+:[^,:]+$/.test(pair.trim())),
      'must be network:handle pairs separated by commas',
    )
    .optional(),
  CAMPAIGNS_URL: sourceUrl.optional(),
  CAMPAIGNS_KEY: z.string().min(1).optional(),
  ANALYTICS_TIMEOUT_MS: positiveInt.default(5_000),

  /** The log viewer's store: newest lines kept, and for how long at most. */
  LOG_STORE_MAX_ENTRIES: positiveInt.default(20_000),
  LOG_STORE_RETENTION_MINUTES: positiveInt.default(1440),
  /** Where the engines' log files are (the devstack's DATA_DIR/logs when it runs in this process). */
  ENGINE_LOG_DIR: z.string().min(1).optional(),

  /** The port of GET /metrics (Prometheus), apart from the API's (unset: no metrics served; 0: a free port). */
  METRICS_PORT: port.optional(),
  /** Traces exported by OTLP over HTTP to this collector (`/v1/traces` appended); unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('lead-service'),
  /** How long a stopping API lets requests in flight finish before it closes their connections. */
  SHUTDOWN_GRACE_MS: positiveInt.default(20_000),
  /** Lifetimes in days of what the daily purge removes (docs/operations.md, "Retention"); 0 keeps them. */
  RETENTION_OUTBOX_DAYS: days.default(30),
  RETENTION_SESSIONS_DAYS: days.default(30),
  RETENTION_ACTIVITY_DAYS: days.default(400),
  RETENTION_RELAY_USAGE_DAYS: days
    .refine((d) => d === 0 || d >= 32, 'must be 0 (keep) or at least 32 (monthly spend is read from it)')
    .default(400),
  RETENTION_JOB_ITEMS_DAYS: days.default(90),
});

type Raw = z.infer<typeof schema>;

/** Every setting the service reads (the deployment files are checked against this list). */
export const CONFIG_KEYS = Object.keys(schema.shape) as (keyof Raw)[];

/**
 * Any setting may instead be given as the path of a file holding its value, `<NAME>_FILE` (Docker's and
 * Kubernetes' secrets, compose's generated ones), so that a secret never sits in the process's environment.
 */
export const FILE_SUFFIX = '_FILE';

/** Every environment variable the service's configuration reads: each setting, and each setting's file form. */
export const CONFIG_ENV_NAMES: readonly string[] = CONFIG_KEYS.flatMap((key) => [key, `${key}${FILE_SUFFIX}`]);

export interface Config extends Omit<
  Raw,
  'VALIDATE_RESPONSES' | 'RUN_WORKER' | 'TRUST_PROXY' | 'WATCH_TRIGGER_MIN_INTERVAL_SECONDS'
> {
  /** The setting, or WATCH_MIN_INTERVAL_SECONDS when it is unset. */
  WATCH_TRIGGER_MIN_INTERVAL_SECONDS: number;
  /** The value for Express's `trust proxy` setting. */
  TRUST_PROXY: boolean | number | string;
  VALIDATE_RESPONSES: boolean;
  /** True when no engine URL is configured for a role, so the devstack provides it. */
  localDefault: { mongo: boolean; redis: boolean; temporal: boolean };
  RUN_WORKER: boolean;
  /** TEMPORAL_BULK_TASK_QUEUE, or TEMPORAL_TASK_QUEUE-bulk. */
  bulkTaskQueue: string;
  dataDir: string;
  /**
   * Whether a 500's underlying error message may reach the HTTP answer: only on a developer's own machine,
   * that is NODE_ENV set to development or test explicitly (never by default) and the API on loopback only.
   * Anywhere else a forgotten NODE_ENV would hand driver messages, hosts and credentials in URLs to callers.
   */
  exposeErrorDetails: boolean;
}

export class ConfigError extends Error {}

/**
 * The base of the links the service sends and the pages it names: PUBLIC_BASE_URL, else the address the API
 * listens on (its real port when PORT=0), else HOST and PORT (a worker-only process, which listens on nothing).
 */
export function publicBaseUrlOf(config: Config, listening = `http://${config.HOST}:${config.PORT}`): string {
  return (config.PUBLIC_BASE_URL ?? listening).replace(/\/$/, '');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string
  >;
  const { values: defined, fromFiles } = readSettingFiles(given);
  const parsed = schema.safeParse(defined);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const key = String(i.path[0]);
      // A value read from a file is a secret's (a connection string holds its password): never echoed.
      const hidden = isSecretKey(key) || fromFiles.has(key);
      const got = key in defined ? ` (got ${JSON.stringify(hidden ? '***' : defined[key])})` : '';
      return `  ${key}: ${i.message}${got}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const raw = parsed.data;
  const problems = [
    raw.NODE_ENV === 'production' && !raw.CREDENTIALS_KEY && 'CREDENTIALS_KEY: required in production',
    // Links in e-mails and SMS, the signup page and the codec endpoint must name the public address.
    raw.NODE_ENV === 'production' && !raw.PUBLIC_BASE_URL && 'PUBLIC_BASE_URL: required in production',
    !raw.TEMPORAL_TLS_CERT !== !raw.TEMPORAL_TLS_KEY && 'TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY: set both or neither',
    raw.HTTP_HEADERS_TIMEOUT_MS > raw.HTTP_REQUEST_TIMEOUT_MS &&
      'HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (the head is part of the request)',
    raw.JOB_MAX_UNFINISHED > 0 &&
      raw.JOB_CLIENT_MAX_UNFINISHED >= raw.JOB_MAX_UNFINISHED &&
      "JOB_CLIENT_MAX_UNFINISHED: must be below JOB_MAX_UNFINISHED (one client alone would fill the deployment's bound)",
    raw.REDIS_SENTINELS &&
      !raw.REDIS_URL &&
      'REDIS_URL: required with REDIS_SENTINELS (redis://[:password@]any-host[/db], its host unused)',
  ].filter(Boolean);
  if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  const localDefault = { mongo: !raw.MONGODB_URI, redis: !raw.REDIS_URL, temporal: !raw.TEMPORAL_ADDRESS };
  return {
    ...raw,
    VALIDATE_RESPONSES: raw.VALIDATE_RESPONSES ?? raw.NODE_ENV === 'test',
    RUN_WORKER: raw.RUN_WORKER ?? localDefault.temporal,
    WATCH_TRIGGER_MIN_INTERVAL_SECONDS: raw.WATCH_TRIGGER_MIN_INTERVAL_SECONDS ?? raw.WATCH_MIN_INTERVAL_SECONDS,
    TRUST_PROXY: trustProxyValue(raw.TRUST_PROXY),
    bulkTaskQueue: raw.TEMPORAL_BULK_TASK_QUEUE ?? `${raw.TEMPORAL_TASK_QUEUE}-bulk`,
    localDefault,
    dataDir: path.resolve(raw.DATA_DIR),
    exposeErrorDetails: ['development', 'test'].includes(defined.NODE_ENV ?? '') && isLoopback(raw.HOST),
  };
}

/**
 * The settings given as `<NAME>_FILE` replaced by their files' contents (less one final line break, which editors
 * and `echo` add; an empty file leaves the setting unset). A setting given both ways, or a file that cannot be read, stops the start: silently preferring
 * one would run with a value nobody meant.
 */
function readSettingFiles(given: Record<string, string>): { values: Record<string, string>; fromFiles: Set<string> } {
  const values = { ...given };
  const fromFiles = new Set<string>();
  const problems: string[] = [];
  for (const key of CONFIG_KEYS) {
    const file = given[`${key}${FILE_SUFFIX}`];
    if (file === undefined) continue;
    delete values[`${key}${FILE_SUFFIX}`];
    if (key in given) {
      problems.push(`${key}, ${key}${FILE_SUFFIX}: set one or the other, not both`);
      continue;
    }
    try {
      const value = fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      // An empty file is no setting, as an empty variable is (a key kept for rotation, empty until it is needed).
      if (value === '') continue;
      values[key] = value;
      fromFiles.add(key);
    } catch (err) {
      problems.push(`${key}${FILE_SUFFIX}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return { values, fromFiles };
}

/** HOST names and addresses that only this machine can reach (not 0.0.0.0 or ::, which are every interface). */
function isLoopback(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name === '::1' || /^127(?:\.\d{1,3}){3}$/.test(name);
}

/** The keys CREDENTIALS_KEY replaced (CREDENTIALS_KEY_PREVIOUS), which still open what was sealed under them. */
export function previousCredentialsKeys(config: Pick<Config, 'CREDENTIALS_KEY_PREVIOUS'>): string[] {
  return (config.CREDENTIALS_KEY_PREVIOUS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
}

function trustProxyValue(setting: string): boolean | number | string {
  const value = setting.trim();
  if (['true', 'false'].includes(value)) return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

function isSecretKey(key: string): boolean {
  return /KEY|SECRET|PASSWORD|TOKEN/.test(key);
}
