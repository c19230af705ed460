import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BrandModel } from '../../src/brands/brand.model';
import { approvalMail, decideByLink, linkOf } from '../agents/agent-helpers';
import { seedPins } from '../pins/pin-fixtures';
import { ADMIN, createClient, useTestApi } from '../support/harness';
import { SMALL_JOB_PLACES, WATCHED_JOB, WATCHED_JOB_PLACES } from './client-fixtures';

const CLI = path.resolve(__dirname, '../../node_modules/.bin/lead-service');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

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
  const ctx = useTestApi();
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
    expect(stored).toEqual({ url: ctx.api.url, token: expect.stringMatching(/^lss_/) });
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
});
