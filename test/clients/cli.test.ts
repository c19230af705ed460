import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BrandModel } from '../../src/brands/brand.model';
import { idapRef, resourceId } from '../../src/idap/resources/resource.model';
import { seedResources } from '../support/resources';
import { approvalMail, decideByLink, linkOf } from '../agents/agent-helpers';
import { SYNC_ENV, settled } from '../idap/sync/sync-helpers';
import { seedPins } from '../pins/pin-fixtures';
import { ADMIN, createClient, indexLock, useTestApi } from '../support/harness';
import { SMALL_JOB_PLACES, WATCHED_JOB, WATCHED_JOB_PLACES } from './client-fixtures';
import { fakeClock } from '../support/fake-clock';

const CLI = path.resolve(__dirname, '../../node_modules/.bin/lead-service');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A name as someone hostile gives it to a lead or a watch: an OSC 8 hyperlink to another place than the text shows,
 * a CSI that clears the screen, a carriage return and an 8-bit CSI, a bidi override that shows "exe.txt" as
 * "txt.exe", a line break that forges a line of its own, and invisible tag characters that carry text.
 */
const HOSTILE_NAME =
  'Bakkerij \x1b]8;;http://evil.example\x07De Zon\x1b]8;;\x07\x1b[2J\r\x9b31m\u202etxt.exe\u202c' +
  '\nerror: 401 log in again\u{e0041}\u{e0042}';

/** What a terminal acts on or reorders and hides text with: C0 controls but the line break, DEL, C1, bidi, tags. */
const TERMINAL_CONTROLS =
  // eslint-disable-next-line no-control-regex -- control characters are what this test looks for
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]/u;

/** A server that answers 401 to everything and records each request's Authorization header. */
async function recordingServer() {
  const authorizations: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"detail":"Not authenticated"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('the lead-service command line against the service', () => {
  // The shortest settle lag, so that a lead written by the test is listed soon.
  // The API's clock stands still unless a test moves it: the lockout's window ends when the test says.
  const clock = fakeClock();
  const ctx = useTestApi(SYNC_ENV, { clock });
  const configFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lead-cli-')), 'config.json');
  let client: Awaited<ReturnType<typeof createClient>>;
  let jobId = '';

  /** Runs the CLI as a user would (its own process; the API answers from this one, so never synchronously). */
  const envOf = (env: Record<string, string>) => ({
    ...process.env,
    LEAD_SERVICE_URL: ctx.api.url,
    LEAD_SERVICE_CONFIG: configFile,
    LEAD_SERVICE_TOKEN: '',
    ...env,
  });
  const start = (args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<Run> } => {
    const child = spawn(CLI, args, { env: envOf(env) });
    const run: Run = { code: null, stdout: '', stderr: '' };
    child.stdout!.on('data', (chunk) => (run.stdout += chunk));
    child.stderr!.on('data', (chunk) => (run.stderr += chunk));
    return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ ...run, code }))) };
  };
  const cli = (...args: string[]) => start(args).done;
  const jsonOf = (run: Run) => {
    if (run.code !== 0) throw new Error(`exit ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  };

  beforeAll(async () => {
    client = await createClient(ctx.api, ctx.admin, 'Command');
    await BrandModel.create({ _id: 52, client_id: client.client_id, brand_name: 'Command', slug: 'command' });
    await seedPins(ctx.api, client.client_id, [
      { country_code: 'NL', name: 'BAKKERIJ-DE-ZON', lat: 52.0907, lng: 5.1214, brand_id: 52 },
    ]);
  });

  it('login keeps a session for later commands, readable by its owner only; the password read from stdin', async () => {
    // Not on the command line, where every user of the machine sees it: piped in, its first line.
    const { child, done } = start(['login', '--email', ADMIN.email, '--json']);
    child.stdin!.write(`${ADMIN.password}\n`); // the input stays open: the first line is enough
    const run = await done;
    expect(run.code).toBe(0);
    expect(jsonOf(run)).toMatchObject({ email: ADMIN.email, role: 'super_admin', config: configFile });
    const stored = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    expect(stored).toEqual({ url: ctx.api.url, token: expect.stringMatching(/^lss_/), device: expect.any(String) });
    expect(fs.statSync(configFile).mode & 0o777).toBe(0o600);

    // --password still works (discouraged: ps shows it).
    const wrong = await cli('login', '--email', ADMIN.email, '--password', 'not-the-password');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: 401 /);
  });

  it('login on a terminal asks for the password without echoing it', async () => {
    // script(1) gives the command a pseudo-terminal, as a person's shell does; what it echoes is in its output.
    const command = `${CLI} login --email ${ADMIN.email} --json`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: envOf({}) });
    let output = '';
    const done = new Promise((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) =>
      child.stdout!.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Password: ')) resolve();
      }),
    );
    child.stdin!.write(`${ADMIN.password}\r`);
    expect(await done).toBe(0);
    expect(output).not.toContain(ADMIN.password);
    expect(output).toContain(`"email":"${ADMIN.email}"`);
  });

  it('login keeps the device cookie and sends it back: failures others make from the same address do not lock it out', async () => {
    const user = { email: 'device@cli.test', password: 'device-password-123' };
    const created = await ctx.api.call('POST', '/api/v1/dashboard/users', {
      token: ctx.admin,
      body: { ...user, role: 'client_user', client_id: client.client_id },
    });
    expect(created.status).toBe(201);
    const ownConfig = path.join(path.dirname(configFile), 'device.json');
    const loginRun = async () => {
      const { child, done } = start(['login', '--email', user.email], { LEAD_SERVICE_CONFIG: ownConfig });
      child.stdin!.end(`${user.password}\n`);
      return done;
    };
    expect((await loginRun()).code).toBe(0);
    const first = JSON.parse(fs.readFileSync(ownConfig, 'utf8'));
    expect(first).toEqual({ url: ctx.api.url, token: expect.stringMatching(/^lss_/), device: expect.any(String) });

    // Someone on the same machine (the same address) guesses at the account until it is locked for unknown devices:
    // all in one of the lockout's fixed windows (15 minutes), a fresh one.
    clock.toNextWindow(15 * 60_000);
    const guess = (password: string) =>
      ctx.api.call('POST', '/api/v1/auth/login', { body: { email: user.email, password } }).then((r) => r.status);
    for (let i = 0; i < 10; i++) expect(await guess('wrong-password')).toBe(401);
    expect(await guess(user.password)).toBe(429);
    // The command line, from the device that logged in before, still gets in, and keeps the renewed cookie.
    const again = await loginRun();
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(JSON.parse(fs.readFileSync(ownConfig, 'utf8')).device).not.toBe(first.device);
  });

  it('token request prints the request id, waits for the approval and keeps the token', async () => {
    const { child, done } = start([
      'token', 'request', '--client-id', client.client_id, '--email', 'dev@agency.test', '--project', 'cli',
      '--scope', 'jobs:read', '--scope', 'jobs:submit', '--json',
    ]); // prettier-ignore
    const receipt = await new Promise<{ request_id: string; status: string }>((resolve) =>
      child.stdout!.once('data', (line) => resolve(JSON.parse(String(line).split('\n')[0]))),
    );
    expect(receipt.status).toBe('pending');
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    expect((await decideByLink(linkOf(mail, 'approve'))).status).toBe(200);
    const run = await done;
    expect(run.code).toBe(0);
    const approved = JSON.parse(run.stdout.trim().split('\n')[1]);
    expect(approved).toMatchObject({ request_id: receipt.request_id, status: 'approved' });
    expect(JSON.parse(fs.readFileSync(configFile, 'utf8')).token).toBe(approved.access_token);
    expect(jsonOf(await cli('token', 'status', '--json'))).toMatchObject({ valid: true });
  }, 60_000);

  it('sends the kept token only to the service it was kept for, not to another --url or LEAD_SERVICE_URL', async () => {
    const elsewhere = await recordingServer();
    try {
      const stray = await cli('token', 'status', '--json', '--url', elsewhere.url);
      expect(stray.code).toBe(1);
      expect(stray.stderr).toContain(`note: the credential in ${configFile} is for ${ctx.api.url}, not sent to`);
      const viaEnv = await start(['token', 'status'], { LEAD_SERVICE_URL: elsewhere.url }).done;
      expect(viaEnv.code).toBe(1);
      expect(elsewhere.authorizations).toEqual([undefined, undefined]);
      // A token given for the call goes where the call goes: the caller chose both.
      await cli('token', 'status', '--url', elsewhere.url, '--token', 'lpat_given');
      expect(elsewhere.authorizations[2]).toBe('Bearer lpat_given');
    } finally {
      await elsewhere.close();
    }
    // The same origin written another way is the same service.
    expect(jsonOf(await cli('token', 'status', '--json', '--url', `${ctx.api.url}/`))).toMatchObject({ valid: true });
  });

  it('--version and --help', async () => {
    const version = await cli('--version');
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^@lead-service\/client \d+\.\d+\.\d+$/);
    const help = await cli('--help');
    expect(help.stdout).toContain('Usage: lead-service <command>');
  });

  it('jobs submit, then watch shows the progress bar from the event stream until the job completes', async () => {
    const submitted = await cli(
      'jobs', 'submit', '--query', 'bakery', '--country', 'NL', '--region', 'NL-UT', '--max-locations', '2', '--json',
    ); // prettier-ignore
    expect(submitted.code).toBe(0);
    jobId = jsonOf(submitted).job_id;
    const watched = await cli('jobs', 'watch', jobId);
    expect(watched.code).toBe(0);
    const lines = watched.stdout.trim().split('\n');
    expect(lines.at(-2)).toMatch(/^\[#{30}\] {2}2\/2 {2}completed/);
    expect(lines.at(-1)).toBe(`maps-scrape ${jobId} completed: ${SMALL_JOB_PLACES().length} results`);

    const asJson = await cli('jobs', 'watch', jobId, '--json');
    const updates = asJson.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(updates.at(-1).progress).toMatchObject({ kind: 'maps-scrape', job: { job_id: jobId, status: 'completed' } });
  }, 60_000);

  it('jobs status and results read the job; cancel of a finished job is the service error', async () => {
    expect(jsonOf(await cli('jobs', 'status', jobId, '--json'))).toMatchObject({
      kind: 'maps-scrape',
      status: 'completed',
    });
    const page = jsonOf(await cli('jobs', 'results', jobId, '--page-size', '100', '--json'));
    expect(page.total).toBe(SMALL_JOB_PLACES().length);
    expect(page.results.map((r: { name: string }) => r.name).sort()).toEqual(
      SMALL_JOB_PLACES()
        .map((p) => p.name)
        .sort(),
    );
    const csv = await cli('jobs', 'results', jobId, '--format', 'csv');
    expect(csv.stdout.split('\r\n')[0]).toMatch(/^idap_ref,name,/);

    const cancel = await cli('jobs', 'cancel', jobId, '--json');
    expect(cancel.code).toBe(1);
    expect(JSON.parse(cancel.stderr)).toEqual({ error: { status: 409, detail: expect.any(String) } });
    const pause = await cli('jobs', 'pause', jobId);
    expect(pause.code).toBe(2);
    expect(pause.stderr).toContain('a maps-scrape job cannot pause');
  }, 60_000);

  it('watch create, trigger --wait (its run, its new leads), runs, get, pause, resume, list, update, delete', async () => {
    const created = jsonOf(
      await cli(
        'watch', 'create', '--name', 'Florists', '--query', 'florist', '--country', 'NL', '--region', 'NL-UT',
        '--max-locations', '2', '--cron', '0 6 * * MON', '--time-zone', 'Europe/Amsterdam', '--json',
      ),
    ); // prettier-ignore
    expect(created).toMatchObject({ job_type: 'maps-scrape', state: 'active', cadence: { cron: '0 6 * * MON' } });
    const id = created.watch_id;
    const ran = await cli('watch', 'trigger', id, '--wait', '--timeout', '60');
    expect(ran.code).toBe(0);
    const [summary, ...refs] = ran.stdout.trim().split('\n');
    const found = WATCHED_JOB_PLACES().length; // another subject than the jobs above: all new
    expect(summary).toMatch(new RegExp(`^[0-9a-f-]{36} completed \\S+: ${found} results, ${found} new$`));
    expect(refs).toHaveLength(found);
    expect(refs.every((ref) => ref.startsWith('idap://businesses/'))).toBe(true);
    expect(jsonOf(await cli('watch', 'runs', id, '--json'))).toMatchObject({
      total: 1,
      runs: [{ new_leads_count: found }],
    });
    expect((await cli('watch', 'get', id)).stdout).toMatch(/\nlast run [0-9a-f-]{36} completed /);
    expect(jsonOf(await cli('watch', 'pause', id, '--json'))).toMatchObject({ state: 'paused', next_runs: [] });
    expect(jsonOf(await cli('watch', 'resume', id, '--json')).state).toBe('active');
    expect((await cli('watch', 'list')).stdout).toContain(
      `${id} active maps-scrape cron "0 6 * * MON" Europe/Amsterdam`,
    );
    const updated = jsonOf(await cli('watch', 'update', id, '--every', '86400', '--max-locations', '1', '--json'));
    expect(updated.cadence).toEqual({ interval_seconds: 86_400 });
    expect(updated.maps_scrape).toEqual({ ...WATCHED_JOB, max_locations: 1 }); // the flags given, over the rest
    expect((await cli('watch', 'update', id)).code).toBe(2);
    const tooOften = await cli('watch', 'create', '--name', 'x', '--query', 'q', '--country', 'NL', '--every', '60');
    expect(tooOften.code).toBe(1);
    expect(tooOften.stderr).toMatch(/^error: 422 .*at most every 3600 seconds/);
    expect((await cli('watch', 'create', '--name', 'x', '--query', 'q', '--country', 'NL')).code).toBe(2);
    expect((await cli('watch', 'delete', id)).stdout.trim()).toBe(`deleted ${id}`);
    expect((await cli('watch', 'get', id)).code).toBe(1);
  }, 90_000);

  it('pins search and resolve act for the token’s brand', async () => {
    const found = jsonOf(await cli('pins', 'search', 'bakkerij', '--json'));
    expect(found.hits.map((h: { pin_id: string }) => h.pin_id)).toEqual(['NL:BAKKERIJ-DE-ZON']);
    const resolved = await cli('pins', 'resolve', 'NL:BAKKERIJ-DE-ZON');
    expect(resolved.stdout.trim()).toBe('NL:BAKKERIJ-DE-ZON  52.0907,5.1214  brand 52');
    const missing = await cli('pins', 'resolve', 'NL:NOWHERE');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: 404 /);
  });

  it('prints what the service sent terminal-safe: no escape sequence, control or bidi override of a name reaches it', async () => {
    await seedResources(
      client.client_id,
      [{ type: 'businesses', naturalKey: 'hostile', data: { name: HOSTILE_NAME } }],
      indexLock(ctx.api),
    );
    const ref = idapRef('businesses', resourceId(client.client_id, 'businesses', 'hostile'));
    const flagged = await cli('leads', 'flag', ref, '--add', 'reviewed');
    expect(flagged.code).toBe(0);
    expect(flagged.stdout).not.toMatch(TERMINAL_CONTROLS);
    // Shown, not acted on: each one written out, on the lead's own line.
    expect(flagged.stdout.trim().split('\n')).toEqual([
      `${ref}  [new, reviewed]  Bakkerij \\x1b]8;;http://evil.example\\x07De Zon\\x1b]8;;\\x07\\x1b[2J\\r\\x9b31m` +
        '\\u202etxt.exe\\u202c\\nerror: 401 log in again\\u{e0041}\\u{e0042}',
    ]);
    // --json is the exact value (JSON escapes what a terminal would act on).
    const asJson = await cli('leads', 'flag', ref, '--add', 'reviewed', '--json');
    expect(asJson.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(jsonOf(asJson).results[ref].data.name).toBe(HOSTILE_NAME);

    await settled(); // the flags' change is listed once the settle lag has passed
    const listed = await cli('leads', 'list', 'businesses', '--flags', 'reviewed'); // the hostile one alone
    expect(listed.stdout).toContain(`${ref}  [new, reviewed]  Bakkerij \\x1b]8;;`);
    expect(listed.stdout).not.toMatch(TERMINAL_CONTROLS);
    // A format of the service's own is its data: exact when it goes to a file or a pipe, made safe on a terminal.
    const markdown = await cli('leads', 'list', 'businesses', '--flags', 'reviewed', '--format', 'md');
    expect(markdown.stdout).toContain('Bakkerij \x1b]8;;http://evil.example\x07De Zon');
    const command = `${CLI} leads list businesses --flags reviewed --format md`;
    const onTerminal = spawn('script', ['-qec', command, '/dev/null'], { env: envOf({}) });
    let shown = '';
    onTerminal.stdout!.on('data', (chunk) => (shown += chunk));
    expect(await new Promise((resolve) => onTerminal.on('close', resolve))).toBe(0);
    expect(shown).toContain('Bakkerij \\x1b]8;;http://evil.example\\x07De Zon');
    expect(shown.replace(/\r\n/g, '\n')).not.toMatch(TERMINAL_CONTROLS);

    // A watch's name, as another user of the client may have given it.
    const watch = await ctx.api.call('POST', '/api/v1/dashboard/client/watches', {
      token: client.triple,
      body: { name: HOSTILE_NAME, maps_scrape: WATCHED_JOB, cadence: { interval_seconds: 86_400 } },
    });
    expect(watch.status).toBe(201);
    for (const args of [
      ['watch', 'get', watch.body.watch_id],
      ['watch', 'list'],
    ]) {
      const run = await cli(...args);
      expect([args, run.code]).toEqual([args, 0]);
      expect(run.stdout).toContain('Bakkerij \\x1b]8;;http://evil.example');
      expect(run.stdout).not.toMatch(TERMINAL_CONTROLS);
    }
    expect(jsonOf(await cli('watch', 'get', watch.body.watch_id, '--json')).name).toBe(HOSTILE_NAME);
  });
});
