/**
 * The command line (`npx lead-service`): log in, submit and control jobs and watch them, keep watches (jobs run on a
 * cadence), list, sync and flag leads, search and resolve pins, request an agent token, and call any operation of the
 * contract by its operationId (`call`, what the console's "show the API call" writes). `--json` prints JSON (one
 * document, or one per line while something is followed).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { AccessRequestRefused, type AccessRequestBody } from './access';
import { createLeadServiceClient, type LeadServiceClient } from './client';
import { configPath, readLogin, saveLogin, storedFor, type StoredLogin } from './cli-config';
import { LeadServiceError, unwrap } from './errors';
import { LeadServiceUnreachable } from './network-errors';
import type { JobState } from './jobs';
import type { Watch, WatchBody, WatchChanges, WatchRun } from './watches';
import { OPERATIONS, type Operation } from './generated/operations';
import { PACKAGE } from './package-info';
import { readPassword } from './password-prompt';
import type { ListedResource, ResourcePage, ResourceType } from './resources';
import { progressBar } from './progress-bar';
import { line, terminalSafe, terminalSafeBlock, terminalSafeJson } from './terminal-text';

const USAGE = `Usage: lead-service <command> [options]

  login [--email E]                        log in as a dashboard user; the session is kept for later commands,
                                           and the device cookie for the next login (others' failed logins
                                           then do not lock it out). The password is asked for on a terminal
                                           (not echoed), else read from the first line of standard input;
                                           --password P works too but shows it to every user of the machine
                                           (ps), so it is discouraged
  jobs submit [--type maps-scrape|research] [--query Q --country CC --region R ... --max-locations N
              --max-results N --language L] [--source-job ID] [--data JSON] [--watch]
  jobs status|results|watch|pause|resume|cancel <job id>
              results: [--page N --page-size N --format json|csv|jsonl]   watch: [--timeout SECONDS]
  leads list <type> [--flags F] [--fields F] [--limit N] [--cursor C | --since TIME] [--format json|yaml|md]
                                           one page of a resource type (businesses, contacts, ...), oldest
                                           change first, and the cursor that goes on
  leads sync <type> [--state FILE | --cursor C | --since TIME] [--flags F] [--fields F] [--limit N]
                                           follows the sync to its end, a line per resource; with --state the
                                           cursor is kept in FILE after each page, and the next run goes on
                                           from it (only what was created or changed since)
  leads flag <idap ref> ... [--add F ...] [--remove F ...]
                                           qualify, reject or tag resources (exit 1 if a ref failed)
  watch create --name N [--type maps-scrape|research] [--query Q --country CC --region R ... --max-locations N
               --max-results N --language L] [--data JSON] (--every SECONDS | --cron EXPR [--time-zone TZ])
               [--catchup SECONDS] [--webhook URL]      a saved job run on a cadence (--data: the job's parameters)
  watch update <watch id> [--name N] [job flags as create's] [--every S | --cron EXPR [--time-zone TZ]]
               [--catchup SECONDS] [--webhook URL | --no-webhook]    changes what is given
  watch list [--state active|paused] [--page N --page-size N]
  watch get|pause|resume|delete|runs <watch id>
  watch trigger <watch id> [--wait [--timeout SECONDS]]    run it now; --wait prints the run and its new leads
  pins search [query] [--filter F] [--limit N] [--data JSON] [--brand ID]
  pins resolve <COUNTRY:NAME> [--brand ID]
  token request --client-id ID --email OWNER --project NAME [--scope S ...] [--ttl-hours N] [--multi-brand]
                [--no-save]                  ask for an agent token and wait for an admin's approval
  token status                             the token in use
  call <operationId> [--param name=value ...] [--header 'Name: value' ...] [--data JSON]
                                           any operation of openapi.yaml by its operationId: --param fills its
                                           path, query (repeat a name for a list) and header parameters, --data
                                           is its JSON body; prints the answer (exit 1 on an error answer). The
                                           console's "API call" writes each action this way

Options: --url URL (LEAD_SERVICE_URL, default http://127.0.0.1:8080), --token T (LEAD_SERVICE_TOKEN: an agent
token, a session or a credential triple), --request-timeout SECONDS (the longest wait for each answer), --json,
--version, --help. A service that cannot be reached is named with the cause: connection refused, a name that does
not resolve, a TLS certificate not trusted, or no answer in time. Login and approved tokens are kept in
$LEAD_SERVICE_CONFIG (default ~/.config/lead-service/config.json), each sent only to the service (origin) it was
kept for. LEAD_SERVICE_EMAIL and LEAD_SERVICE_PASSWORD stand in for login's --email and --password. What the
service sent is printed with control characters, escape sequences and bidi overrides written out (\\x1b, \\u202e);
--json keeps exact values; --format csv|jsonl|yaml|md is written as sent, but made the same way safe on a terminal.`;

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  email: { type: 'string' },
  password: { type: 'string' },
  type: { type: 'string' },
  query: { type: 'string' },
  country: { type: 'string' },
  region: { type: 'string', multiple: true },
  'max-locations': { type: 'string' },
  'max-results': { type: 'string' },
  language: { type: 'string' },
  'source-job': { type: 'string' },
  data: { type: 'string' },
  watch: { type: 'boolean' },
  page: { type: 'string' },
  'page-size': { type: 'string' },
  format: { type: 'string' },
  timeout: { type: 'string' },
  'request-timeout': { type: 'string' },
  filter: { type: 'string' },
  limit: { type: 'string' },
  brand: { type: 'string' },
  'client-id': { type: 'string' },
  project: { type: 'string' },
  scope: { type: 'string', multiple: true },
  'ttl-hours': { type: 'string' },
  'multi-brand': { type: 'boolean' },
  'no-save': { type: 'boolean' },
  flags: { type: 'string' },
  fields: { type: 'string' },
  cursor: { type: 'string' },
  since: { type: 'string' },
  state: { type: 'string' },
  add: { type: 'string', multiple: true },
  remove: { type: 'string', multiple: true },
  name: { type: 'string' },
  every: { type: 'string' },
  cron: { type: 'string' },
  'time-zone': { type: 'string' },
  catchup: { type: 'string' },
  webhook: { type: 'string' },
  'no-webhook': { type: 'boolean' },
  wait: { type: 'boolean' },
  param: { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** A command's view of the invocation: its options, its operands, the client and how to print. */
interface Invocation {
  values: Values;
  operands: string[];
  url: string;
  configFile: string;
  /** What login or token request kept for this service (nothing when it was kept for another). */
  stored: StoredLogin;
  client: LeadServiceClient;
  /**
   * Prints `document` as JSON with --json, else the human line(s); either way terminal-safe (terminal-text.ts): the
   * human lines compose the service's values with `line`, so a value cannot forge a line either.
   */
  print(document: unknown, human: string): void;
}

class UsageError extends Error {}

const DEFAULT_URL = 'http://127.0.0.1:8080';
/** The cookie a login sets for the device that logged in (openapi.yaml, the login operation's Set-Cookie). */
const DEVICE_COOKIE = 'lead_device';

const integer = (value: string | undefined, name: string) => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be a whole number`);
  return n;
};

/** A positive number of seconds, in milliseconds. */
const seconds = (value: string | undefined) => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(n > 0)) throw new UsageError('--request-timeout must be a number of seconds above 0');
  return n * 1000;
};

const operand = (inv: Invocation, what: string) => {
  const value = inv.operands[0];
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
};

const jsonOption = (value: string) => {
  try {
    return JSON.parse(value) as Record<string, unknown>;
  } catch {
    throw new UsageError('--data must be JSON');
  }
};

/**
 * What the service sent in a format of its own (CSV, JSON Lines, YAML, Markdown): exactly that into a file or a pipe,
 * where it is data; terminal-safe on a terminal, where it is read.
 */
const writeData = (text: string) => void process.stdout.write(process.stdout.isTTY ? terminalSafeBlock(text) : text);

const brandHeaders = (inv: Invocation) =>
  inv.values.brand ? { 'X-Brand-Id': integer(inv.values.brand, 'brand') } : undefined;

async function login(inv: Invocation) {
  const email = inv.values.email ?? process.env.LEAD_SERVICE_EMAIL;
  if (!email) throw new UsageError('login needs --email (or LEAD_SERVICE_EMAIL)');
  const password = inv.values.password ?? process.env.LEAD_SERVICE_PASSWORD ?? (await readPassword(process.stdin));
  // The device cookie of this service's last login goes back with it: failures others made do not lock it out.
  const { device } = inv.stored;
  const answer = inv.client.api.POST('/api/v1/auth/login', {
    body: { email, password },
    headers: device ? { cookie: `${DEVICE_COOKIE}=${device}` } : undefined,
  });
  const session = await unwrap(answer);
  const renewed = (await answer).response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${DEVICE_COOKIE}=`))
    ?.split(';')[0]
    .slice(DEVICE_COOKIE.length + 1);
  saveLogin(inv.configFile, { url: inv.url, token: session.access_token, device: renewed ?? device });
  inv.print(
    { email: session.user.email, role: session.user.role, expires_at: session.expires_at, config: inv.configFile },
    line`Logged in as ${session.user.email} (${session.user.role}) until ${session.expires_at}; kept in ${inv.configFile}`,
  );
}

function submitBody(values: Values): { research: boolean; body: Record<string, unknown> } {
  const research = values.type === 'research' || (!values.type && Boolean(values['source-job']));
  if (values.type && !['maps-scrape', 'research'].includes(values.type))
    throw new UsageError('--type is maps-scrape or research');
  const fromFlags = research
    ? { source_job_id: values['source-job'] }
    : {
        query: values.query,
        country_code: values.country,
        region_codes: values.region,
        max_locations: integer(values['max-locations'], 'max-locations'),
        max_results: integer(values['max-results'], 'max-results'),
        language: values.language,
      };
  const flags = Object.fromEntries(Object.entries(fromFlags).filter(([, v]) => v !== undefined));
  return { research, body: { ...(values.data ? jsonOption(values.data) : {}), ...flags } };
}

async function submitJob(inv: Invocation) {
  const { research, body } = submitBody(inv.values);
  const { api } = inv.client;
  const jobId = research
    ? (await unwrap(api.POST('/api/v1/dashboard/client/research/submit', { body: body as never }))).research_id
    : (await unwrap(api.POST('/api/v1/dashboard/client/jobs/maps-scrape/submit', { body: body as never }))).job_id;
  if (inv.values.watch) return watchJob({ ...inv, operands: [jobId] }, { job_id: jobId });
  inv.print({ job_id: jobId, type: research ? 'research' : 'maps-scrape' }, jobId);
}

const describeJob = (state: JobState) => {
  const { status, progress, message } = state.job;
  return line`${state.kind} ${status} ${progress.done}/${progress.total}` + (message ? line`  ${message}` : '');
};

async function jobStatus(inv: Invocation) {
  const state = await inv.client.jobState(operand(inv, 'job id'));
  inv.print({ kind: state.kind, ...state.job }, describeJob(state));
}

async function jobResults(inv: Invocation) {
  const id = operand(inv, 'job id');
  const { kind } = await inv.client.jobState(id);
  const format = (inv.values.format ?? 'json') as 'json' | 'csv' | 'jsonl';
  const query = { page: integer(inv.values.page, 'page'), page_size: integer(inv.values['page-size'], 'page-size') };
  const { api } = inv.client;
  const parseAs = format === 'json' ? 'json' : 'text';
  const results = await unwrap<unknown>(
    kind === 'research'
      ? api.GET('/api/v1/dashboard/client/research/{research_id}/results', {
          params: { path: { research_id: id }, query: { ...query, format } },
          parseAs,
        })
      : api.GET('/api/v1/dashboard/client/jobs/{job_id}/results', {
          params: { path: { job_id: id }, query: { ...query, format } },
          parseAs,
        }),
  );
  if (typeof results === 'string') return writeData(results);
  const page = results as { total: number; page: number; results: { name?: string; company_name?: string }[] };
  const lines = page.results.map((r) => terminalSafe(r.name ?? r.company_name ?? JSON.stringify(r)));
  inv.print(page, [`${page.total} results (page ${page.page})`, ...lines].join('\n'));
}

/** Follows a job on the event stream to its end; exit status 1 when it failed or was cancelled. */
async function watchJob(inv: Invocation, submitted?: { job_id: string }) {
  const id = operand(inv, 'job id');
  const bar = progressBar(process.stdout);
  const seconds = integer(inv.values.timeout, 'timeout');
  const final = await inv.client.waitForJob(id, {
    timeoutMs: seconds ? seconds * 1000 : undefined,
    onProgress: (state, frame) => {
      const eventName = frame?.event === 'connected' ? undefined : frame?.event;
      if (inv.values.json) console.log(terminalSafeJson({ event: eventName ?? null, ...submitted, progress: state }));
      else bar.update(state, eventName);
    },
  });
  bar.end();
  if (!inv.values.json)
    console.log(line`${final.kind} ${id} ${final.job.status}: ${final.job.results_count ?? 0} results`);
  if (final.job.status !== 'completed') process.exitCode = 1;
}

async function controlJob(inv: Invocation, action: 'pause' | 'resume' | 'cancel') {
  const id = operand(inv, 'job id');
  const { api } = inv.client;
  const { kind } = await inv.client.jobState(id);
  if (kind === 'maps-scrape' && action !== 'cancel') throw new UsageError(`a maps-scrape job cannot ${action}`);
  const path = { params: { path: { job_id: id } } };
  const researchPath = { params: { path: { research_id: id } } };
  const job: JobState =
    kind === 'maps-scrape'
      ? { kind, job: await unwrap(api.POST('/api/v1/dashboard/client/jobs/{job_id}/cancel', path)) }
      : {
          kind,
          job: await unwrap(
            action === 'pause'
              ? api.POST('/api/v1/dashboard/client/research/{research_id}/pause', researchPath)
              : action === 'resume'
                ? api.POST('/api/v1/dashboard/client/research/{research_id}/resume', researchPath)
                : api.POST('/api/v1/dashboard/client/research/{research_id}/cancel', researchPath),
          ),
        };
  inv.print({ kind, ...job.job }, describeJob(job));
}

const resourceType = (inv: Invocation) => operand(inv, 'resource type (businesses, contacts, ...)') as ResourceType;

/** A resource as a line: its ref, its flags, and its name (or its data). */
const resourceLine = (r: ListedResource) =>
  line`${r.idap_ref}  [${r.flags.join(', ')}]  ${typeof r.data.name === 'string' ? r.data.name : JSON.stringify(r.data)}`;

async function listResources(inv: Invocation) {
  const { values } = inv;
  const format = (values.format ?? 'json') as 'json' | 'yaml' | 'md';
  const query = {
    ...(values.cursor !== undefined && { cursor: values.cursor }),
    ...(values.since !== undefined && { modified_since: values.since }),
    ...(values.flags !== undefined && { flags: values.flags }),
    ...(values.fields !== undefined && { fields: values.fields }),
    ...(values.limit !== undefined && { limit: integer(values.limit, 'limit') }),
    format,
  };
  const page = await unwrap<unknown>(
    inv.client.api.GET('/api/v1/idap/{resource_type}', {
      params: { path: { resource_type: resourceType(inv) }, query },
      parseAs: format === 'json' ? 'json' : 'text',
    }),
  );
  if (typeof page === 'string') return writeData(page);
  const { items, has_more, next_cursor } = page as ResourcePage;
  const next = `${has_more ? 'more' : 'up to date; changes later'}: --cursor ${next_cursor}`;
  inv.print(page, [...items.map(resourceLine), next].join('\n'));
}

/** Follows a sync to its end; with --state, reads the cursor from the file and keeps the new one after each page. */
async function syncResources(inv: Invocation) {
  const { values } = inv;
  const kept = values.state && fs.existsSync(values.state) ? fs.readFileSync(values.state, 'utf8').trim() : undefined;
  let count = 0;
  let cursor = values.cursor ?? kept;
  for await (const page of inv.client.syncResources(resourceType(inv), {
    cursor,
    modifiedSince: cursor ? undefined : values.since,
    flags: values.flags,
    fields: values.fields,
    limit: integer(values.limit, 'limit'),
  })) {
    for (const item of page.items) console.log(values.json ? terminalSafeJson(item) : resourceLine(item));
    count += page.items.length;
    cursor = page.next_cursor;
    if (values.state) fs.writeFileSync(values.state, `${cursor}\n`);
  }
  inv.print({ count, next_cursor: cursor }, `${count} resources; the next sync: --cursor ${cursor}`);
}

async function flagResources(inv: Invocation) {
  const { add, remove } = inv.values;
  if (!inv.operands.length) throw new UsageError('missing idap refs');
  if (!add?.length && !remove?.length) throw new UsageError('leads flag needs --add or --remove');
  const outcome = await inv.client.flagResources(inv.operands, { add, remove });
  const lines = [
    ...Object.values(outcome.results).map(resourceLine),
    ...Object.entries(outcome.errors).map(([ref, error]) => line`${ref}  error: ${error}`),
  ];
  inv.print(outcome, lines.join('\n'));
  if (Object.keys(outcome.errors).length) process.exitCode = 1;
}

const describeWatch = (w: Watch) => {
  const cadence = w.cadence.cron
    ? line`cron "${w.cadence.cron}" ${w.cadence.time_zone ?? 'UTC'}`
    : line`every ${w.cadence.interval_seconds} s`;
  const next = w.next_runs?.length ? line`  next ${w.next_runs[0]}` : '';
  return line`${w.watch_id} ${w.state} ${w.job_type} ` + cadence + line`  ${w.name}` + next;
};

const describeRun = (r: WatchRun) =>
  r.status === 'skipped'
    ? line`${r.run_id} skipped ${r.scheduled_at}: ${r.skip_code} (${r.skip_reason})`
    : line`${r.job_id} ${r.status} ${r.scheduled_at}: ${r.results_count} results, ${r.new_leads_count} new`;

/** The cadence, catch-up window and webhook flags of `watch create` and `watch update` (those given). */
function watchSettings(values: Values) {
  const every = integer(values.every, 'every');
  if (every !== undefined && values.cron !== undefined) throw new UsageError('give --every or --cron, not both');
  if (values['time-zone'] !== undefined && values.cron === undefined)
    throw new UsageError('--time-zone goes with --cron');
  if (values.webhook !== undefined && values['no-webhook']) throw new UsageError('give --webhook or --no-webhook');
  const cron = values.cron === undefined ? undefined : { cron: values.cron, time_zone: values['time-zone'] };
  const settings = {
    cadence: every === undefined ? cron : { interval_seconds: every },
    catchup_window_seconds: integer(values.catchup, 'catchup'),
    webhook_url: values['no-webhook'] ? null : values.webhook,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
}

/** The flags of a job's parameters (`watch update` changes the job when one is given). */
const JOB_FLAGS = [
  'query',
  'country',
  'region',
  'max-locations',
  'max-results',
  'language',
  'source-job',
  'data',
] as const;

async function createWatch(inv: Invocation) {
  const { values } = inv;
  if (!values.name) throw new UsageError('watch create needs --name');
  const settings = watchSettings(values);
  if (!settings.cadence) throw new UsageError('give --every or --cron');
  const { research, body: job } = submitBody(values);
  const body = { name: values.name, [research ? 'research' : 'maps_scrape']: job, ...settings } as unknown as WatchBody;
  const watch = await inv.client.watches.create(body);
  inv.print(watch, describeWatch(watch));
}

/** Changes what is given; job flags change those of the watch's job parameters (its kind stays). */
async function updateWatch(inv: Invocation) {
  const id = operand(inv, 'watch id');
  const { values } = inv;
  const changes: Record<string, unknown> = { ...watchSettings(values), ...(values.name ? { name: values.name } : {}) };
  if (JOB_FLAGS.some((flag) => values[flag] !== undefined)) {
    // The service replaces the job's parameters whole: the flags given are laid over the watch's current ones.
    const watch = await inv.client.watches.get(id);
    const key = watch.job_type === 'research' ? 'research' : 'maps_scrape';
    changes[key] = { ...watch[key], ...submitBody({ ...values, type: watch.job_type }).body };
  }
  if (!Object.keys(changes).length) throw new UsageError('watch update needs something to change');
  const watch = await inv.client.watches.update(id, changes as WatchChanges);
  inv.print(watch, describeWatch(watch));
}

async function listWatches(inv: Invocation) {
  const state = inv.values.state as 'active' | 'paused' | undefined;
  if (state && !['active', 'paused'].includes(state)) throw new UsageError('--state is active or paused');
  const page = await inv.client.watches.list({
    state,
    page: integer(inv.values.page, 'page'),
    page_size: integer(inv.values['page-size'], 'page-size'),
  });
  inv.print(page, [`${page.total} watches (page ${page.page})`, ...page.watches.map(describeWatch)].join('\n'));
}

async function showWatch(inv: Invocation, action: 'get' | 'pause' | 'resume') {
  const id = operand(inv, 'watch id');
  const watch = await inv.client.watches[action](id);
  const last = watch.last_run ? `\nlast run ${describeRun(watch.last_run)}` : '';
  inv.print(watch, describeWatch(watch) + last);
}

/** Runs a watch now; with --wait, until that run has ended (exit status 1 unless its job completed). */
async function triggerWatch(inv: Invocation) {
  const id = operand(inv, 'watch id');
  const { watches } = inv.client;
  const known = inv.values.wait ? (await watches.runs(id, { page_size: 100 })).runs.map((r) => r.run_id) : [];
  const triggered = await watches.trigger(id);
  if (!inv.values.wait) return inv.print(triggered, line`triggered ${id} at ${triggered.triggered_at}`);
  const seconds = integer(inv.values.timeout, 'timeout');
  const run = await watches.waitForRun(id, { known, timeoutMs: seconds ? seconds * 1000 : undefined });
  inv.print(run, [describeRun(run), ...run.new_leads.map(terminalSafe)].join('\n'));
  if (run.status !== 'completed') process.exitCode = 1;
}

async function watchRuns(inv: Invocation) {
  const id = operand(inv, 'watch id');
  const page = await inv.client.watches.runs(id, {
    page: integer(inv.values.page, 'page'),
    page_size: integer(inv.values['page-size'], 'page-size'),
  });
  inv.print(page, [`${page.total} runs (page ${page.page})`, ...page.runs.map(describeRun)].join('\n'));
}

async function deleteWatch(inv: Invocation) {
  const id = operand(inv, 'watch id');
  inv.print(await inv.client.watches.remove(id), `deleted ${id}`);
}

async function searchPins(inv: Invocation) {
  const body = {
    ...(inv.values.data ? jsonOption(inv.values.data) : {}),
    ...(inv.operands[0] !== undefined ? { q: inv.operands[0] } : {}),
    ...(inv.values.filter ? { filter: inv.values.filter } : {}),
    ...(inv.values.limit ? { limit: integer(inv.values.limit, 'limit') } : {}),
  };
  const found = await unwrap(
    inv.client.api.POST('/api/v1/agent/search-pins', {
      body: body as never,
      params: { header: brandHeaders(inv) as never },
    }),
  );
  const hits = found.hits as { pin_id?: string; name?: string }[];
  inv.print(
    found,
    [
      line`${found.estimatedTotalHits ?? hits.length} pins`,
      ...hits.map((h) => terminalSafe(String(h.pin_id ?? h.name))),
    ].join('\n'),
  );
}

async function resolvePin(inv: Invocation) {
  const pin = await unwrap(
    inv.client.api.GET('/api/v1/agent/resolve-pin', {
      params: { query: { pin_id: operand(inv, 'pin id (COUNTRY:NAME)') }, header: brandHeaders(inv) as never },
    }),
  );
  inv.print(pin, line`${pin.pin_id}  ${pin.gps.lat},${pin.gps.lng}  brand ${pin.brand_id}`);
}

async function requestToken(inv: Invocation) {
  const { values } = inv;
  const clientId = values['client-id'];
  if (!clientId || !values.email || !values.project)
    throw new UsageError('token request needs --client-id, --email and --project');
  const body: AccessRequestBody = {
    client_id: clientId,
    owner_email: values.email,
    project_name: values.project,
    requested_scopes: (values.scope ?? ['jobs:read']) as AccessRequestBody['requested_scopes'],
    ttl_hours: integer(values['ttl-hours'], 'ttl-hours'),
    multi_brand: values['multi-brand'],
    fingerprint: { agent_type: 'lead-service-cli', platform: process.platform, node_version: process.version },
  };
  const approved = await inv.client.requestAccess(body, {
    onReceipt: (receipt) =>
      inv.print(
        { request_id: receipt.request_id, status: receipt.status, expires_at: receipt.expires_at },
        line`Access request ${receipt.request_id} sent to the client's admins; waiting for approval (until ` +
          line`${receipt.expires_at}, polling every ${receipt.poll_interval_seconds} s)`,
      ),
  });
  if (!values['no-save'])
    saveLogin(inv.configFile, { url: inv.url, token: approved.access_token ?? undefined, device: inv.stored.device });
  const kept = values['no-save'] ? '' : line`; kept in ${inv.configFile}`;
  inv.print(approved, line`Approved: token ${approved.token_id} until ${approved.token_expires_at}` + kept);
}

async function tokenStatus(inv: Invocation) {
  const status = await unwrap(inv.client.api.GET('/api/v1/auth/pat/status'));
  inv.print(status, terminalSafeJson(status, 2));
}

/** What `call` sends for an operation: its path filled, its query, its headers and its body, from the options. */
export function callRequest(operationId: string, operation: Operation, values: Values) {
  const given = new Map<string, string[]>();
  for (const param of values.param ?? []) {
    const at = param.indexOf('=');
    if (at <= 0) throw new UsageError(`--param ${param}: give it as name=value`);
    const name = param.slice(0, at);
    given.set(name, [...(given.get(name) ?? []), param.slice(at + 1)]);
  }
  const declared = new Map(operation.parameters.map((p) => [p.name, p]));
  const unknown = [...given.keys()].filter(
    (name) => declared.get(name)?.in === undefined || declared.get(name)?.in === 'cookie',
  );
  if (unknown.length) {
    const takes = operation.parameters.filter((p) => p.in !== 'cookie').map((p) => `${p.name} (${p.in})`);
    throw new UsageError(
      `${operationId} has no parameter ${unknown.join(', ')}; it takes ${takes.join(', ') || 'none'}`,
    );
  }
  const missing = operation.parameters.filter((p) => p.required && p.in !== 'cookie' && !given.has(p.name));
  if (missing.length)
    throw new UsageError(`${operationId} needs ${missing.map((p) => `--param ${p.name}=… (${p.in})`).join(', ')}`);
  const of = (where: string) =>
    Object.fromEntries(
      operation.parameters
        .filter((p) => p.in === where && given.has(p.name))
        .map((p) => {
          const values = given.get(p.name)!;
          return [p.name, values.length === 1 ? values[0] : values];
        }),
    );
  const headers: Record<string, string> = of('header') as Record<string, string>;
  for (const header of values.header ?? []) {
    const at = header.indexOf(':');
    if (at <= 0) throw new UsageError(`--header ${header}: give it as 'Name: value'`);
    headers[header.slice(0, at).trim()] = header.slice(at + 1).trim();
  }
  let body: unknown;
  if (values.data !== undefined) {
    if (operation.body === 'none') throw new UsageError(`${operationId} takes no body (--data)`);
    try {
      body = JSON.parse(values.data);
    } catch {
      throw new UsageError('--data must be JSON');
    }
  } else if (operation.body === 'required') throw new UsageError(`${operationId} needs a JSON body (--data)`);
  return { path: of('path'), query: of('query'), headers, body };
}

/**
 * Any operation by its operationId (generated/operations.ts, from the contract): the answer printed as it came, JSON
 * made terminal-safe (indented unless --json), any other text as data; an error answer exits 1 with its detail.
 */
async function callOperation(inv: Invocation) {
  const operationId = operand(inv, 'operationId');
  const operation = Object.hasOwn(OPERATIONS, operationId) ? OPERATIONS[operationId] : undefined;
  if (!operation) throw new UsageError(`${operationId} is no operationId of the service's contract (openapi.yaml)`);
  const { path, query, headers, body } = callRequest(operationId, operation, inv.values);
  // The operation is chosen at run time, so the typed client's per-path types cannot apply: it is called untyped.
  const { response, data, error } = await inv.client.api.request(
    operation.method.toLowerCase() as 'get',
    operation.path as never,
    { params: { path, query }, headers, body, parseAs: 'text' } as never,
  );
  // openapi-fetch reads an error answer as JSON where it is JSON, else as text.
  if (!response.ok)
    throw new LeadServiceError(
      response.status,
      typeof error === 'string' ? { detail: error } : error,
      response.headers,
    );
  const text = String(data ?? '');
  const isJson = /[/+]json\b/.test(response.headers.get('content-type') ?? '');
  const parsed = isJson && text ? (JSON.parse(text) as unknown) : undefined;
  if (!text) return inv.print({ status: response.status }, `${response.status} ${response.statusText}`.trim());
  if (parsed === undefined) return writeData(text);
  console.log(terminalSafeJson(parsed, inv.values.json ? undefined : 2));
}

const COMMANDS: Record<string, (inv: Invocation) => Promise<void>> = {
  login,
  'jobs submit': submitJob,
  'jobs status': jobStatus,
  'jobs results': jobResults,
  'jobs watch': (inv) => watchJob(inv),
  'jobs pause': (inv) => controlJob(inv, 'pause'),
  'jobs resume': (inv) => controlJob(inv, 'resume'),
  'jobs cancel': (inv) => controlJob(inv, 'cancel'),
  'leads list': listResources,
  'leads sync': syncResources,
  'leads flag': flagResources,
  'watch create': createWatch,
  'watch update': updateWatch,
  'watch list': listWatches,
  'watch get': (inv) => showWatch(inv, 'get'),
  'watch pause': (inv) => showWatch(inv, 'pause'),
  'watch resume': (inv) => showWatch(inv, 'resume'),
  'watch trigger': triggerWatch,
  'watch runs': watchRuns,
  'watch delete': deleteWatch,
  'pins search': searchPins,
  'pins resolve': resolvePin,
  'token request': requestToken,
  'token status': tokenStatus,
  call: callOperation,
};

export async function main(argv = process.argv.slice(2)): Promise<void> {
  let json = argv.includes('--json');
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
    json = Boolean(values.json);
    const name = COMMANDS[positionals[0]] ? positionals[0] : positionals.slice(0, 2).join(' ');
    const command = COMMANDS[name];
    if (values.version) return void console.log(`${PACKAGE.name} ${PACKAGE.version}`);
    if (values.help || !command) {
      console.log(USAGE);
      if (!values.help) process.exitCode = 2;
      return;
    }
    const configFile = configPath();
    const stored = readLogin(configFile);
    // An empty variable counts as unset, as a shell's `LEAD_SERVICE_TOKEN= lead-service …` means.
    const url = values.url || process.env.LEAD_SERVICE_URL || stored.url || DEFAULT_URL;
    const given = values.token || process.env.LEAD_SERVICE_TOKEN;
    // A kept credential goes only to the service it was kept for, never to another --url or LEAD_SERVICE_URL.
    const keptHere = storedFor(stored, url);
    const kept = keptHere.token;
    if (!given && stored.token && !kept && !['login', 'token request'].includes(name))
      console.error(`note: the credential in ${configFile} is for ${stored.url}, not sent to ${url}`);
    const token = given || kept;
    await command({
      values,
      operands: positionals.slice(name.split(' ').length),
      url,
      configFile,
      stored: keptHere,
      client: createLeadServiceClient({ baseUrl: url, token, timeoutMs: seconds(values['request-timeout']) }),
      print: (document, human) => console.log(json ? terminalSafeJson(document) : terminalSafeBlock(human)),
    });
  } catch (err) {
    process.exitCode = err instanceof UsageError ? 2 : 1;
    const problem =
      err instanceof LeadServiceError
        ? { status: err.status, detail: err.detail, ...(err.errors.length ? { errors: err.errors } : {}) }
        : err instanceof AccessRequestRefused
          ? { status: err.request.status, detail: err.message }
          : err instanceof LeadServiceUnreachable
            ? { detail: err.message, reason: err.reason, ...(err.code ? { code: err.code } : {}) }
            : { detail: err instanceof Error ? err.message : String(err) };
    if (json) console.error(terminalSafeJson({ error: problem }));
    else console.error(line`error: ${'status' in problem ? `${problem.status} ` : ''}${problem.detail}`);
    if (err instanceof UsageError) console.error(USAGE);
  }
}
