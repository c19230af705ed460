import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrandModel } from '../../src/brands/brand.model';
import { approvalMail, decideByLink, linkOf } from '../agents/agent-helpers';
import { seedPins } from '../pins/pin-fixtures';
import { ADMIN, createClient, useTestApi } from '../support/harness';
import { SMALL_JOB_PLACES } from './client-fixtures';

const CLI = path.resolve(__dirname, '../../node_modules/.bin/lead-service');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('the lead-service command line against the service', () => {
  const ctx = useTestApi();
  const configFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lead-cli-')), 'config.json');
  let client: Awaited<ReturnType<typeof createClient>>;
  let jobId = '';

  /** Runs the CLI as a user would (its own process; the API answers from this one, so never synchronously). */
  const start = (args: string[]): { child: ChildProcess; done: Promise<Run> } => {
    const child = spawn(CLI, args, {
      env: { ...process.env, LEAD_SERVICE_URL: ctx.api.url, LEAD_SERVICE_CONFIG: configFile, LEAD_SERVICE_TOKEN: '' },
    });
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

  it('login keeps a session for later commands, readable by its owner only', async () => {
    const run = await cli('login', '--email', ADMIN.email, '--password', ADMIN.password, '--json');
    expect(run.code).toBe(0);
    expect(jsonOf(run)).toMatchObject({ email: ADMIN.email, role: 'super_admin', config: configFile });
    const stored = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    expect(stored).toEqual({ url: ctx.api.url, token: expect.stringMatching(/^lss_/) });
    expect(fs.statSync(configFile).mode & 0o777).toBe(0o600);

    const wrong = await cli('login', '--email', ADMIN.email, '--password', 'not-the-password');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: 401 /);
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
