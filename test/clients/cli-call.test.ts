import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliCommand, type ApiCall } from '../../console/src/lib/api-call';
import { createClient, useTestApi } from '../support/harness';

/** The package's own launcher (its TypeScript source through tsx), as `lead-service` on a PATH runs it. */
const LAUNCHER = path.resolve(__dirname, '../../packages/client/bin/lead-service.cjs');
const WATCHES = '/api/v1/dashboard/client/watches';
const DAILY = { query: 'bakery', country_code: 'LU', max_locations: 1 };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `lead-service call <operationId>`: any operation of the contract by its operationId, as the console's "API call"
 * writes each action (console/src/lib/api-call.ts's cliCommand).
 */
describe('lead-service call', () => {
  const made: string[] = [];
  // No schedule outlives the test on the shared Temporal (declared first: it runs before the API stops).
  afterAll(async () => {
    for (const id of made) await ctx.api.call('DELETE', `${WATCHES}/${id}`, { token: client.triple });
  });
  const ctx = useTestApi();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-call-'));
  // `lead-service` on a PATH of its own: the shell finds the command the console writes, as a user's would.
  const bin = path.join(home, 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync(LAUNCHER, path.join(bin, 'lead-service'));
  let client: Awaited<ReturnType<typeof createClient>>;

  const run = (command: string, args: string[], env: Record<string, string>): Promise<Run> => {
    const child = spawn(command, args, {
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        LEAD_SERVICE_CONFIG: path.join(home, 'config.json'),
        LEAD_SERVICE_URL: '',
        ...env,
      },
    });
    const out: Run = { code: null, stdout: '', stderr: '' };
    child.stdout.on('data', (chunk) => (out.stdout += chunk));
    child.stderr.on('data', (chunk) => (out.stderr += chunk));
    return new Promise((resolve) => child.on('close', (code) => resolve({ ...out, code })));
  };
  /** The CLI with these words, the client's credential in LEAD_SERVICE_TOKEN. */
  const call = (...args: string[]) =>
    run(LAUNCHER, ['call', ...args, '--url', ctx.api.url], { LEAD_SERVICE_TOKEN: client.triple });
  /** A command line as the console writes it, run by a shell with the credential in the environment. */
  const shell = (line: string, token: string) => run('bash', ['-c', line], { LEAD_SERVICE_TOKEN: token });
  const answer = (r: Run) => {
    if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };

  beforeAll(async () => {
    client = await createClient(ctx.api, ctx.admin, 'Caller');
  });

  it('sends a body, fills path and query parameters, and prints the answer', async () => {
    const created = answer(
      await call(
        'createWatch',
        '--data',
        JSON.stringify({ name: 'Bakeries', maps_scrape: DAILY, cadence: { interval_seconds: 86_400 } }),
      ),
    );
    made.push(created.watch_id);
    expect(created).toMatchObject({ name: 'Bakeries', state: 'active', job_type: 'maps-scrape' });

    // A path parameter and a body.
    const renamed = answer(
      await call('updateWatch', '--param', `watch_id=${created.watch_id}`, '--data', '{"name":"Bakeries (LU)"}'),
    );
    expect(renamed).toMatchObject({ watch_id: created.watch_id, name: 'Bakeries (LU)' });

    // Query parameters: a paused filter finds nothing, an active one finds the watch.
    const paused = answer(await call('listWatches', '--param', 'state=paused', '--param', 'page_size=5'));
    expect(paused).toMatchObject({ total: 0, watches: [] });
    const active = answer(await call('listWatches', '--param', 'state=active', '--param', 'page_size=5'));
    expect(active.watches.map((w: { watch_id: string }) => w.watch_id)).toEqual([created.watch_id]);

    // A path parameter and a query parameter together.
    const runs = answer(await call('listWatchRuns', '--param', `watch_id=${created.watch_id}`, '--param', 'page=1'));
    expect(runs).toMatchObject({ total: 0, page: 1, runs: [] });

    // The answer is printed indented and terminal-safe; --json prints it on one line.
    const plain = await call('getWatch', '--param', `watch_id=${created.watch_id}`);
    expect(plain.stdout).toContain('\n  "name": "Bakeries (LU)"');
    const oneLine = await call('getWatch', '--param', `watch_id=${created.watch_id}`, '--json');
    expect(oneLine.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('sends the headers given: a super_admin acts for the client with X-Selected-Client-Id', async () => {
    const created = answer(
      await call(
        'createWatch',
        '--data',
        JSON.stringify({ name: 'Florists', maps_scrape: DAILY, cadence: { interval_seconds: 86_400 } }),
      ),
    );
    made.push(created.watch_id);
    const other = await createClient(ctx.api, ctx.admin, 'Other caller');
    const listFor = async (clientId: string) =>
      answer(
        await run(
          LAUNCHER,
          ['call', 'listWatches', '--header', `X-Selected-Client-Id: ${clientId}`, '--url', ctx.api.url],
          { LEAD_SERVICE_TOKEN: ctx.admin },
        ),
      );
    const own = await listFor(client.client_id);
    expect(own.watches.map((w: { watch_id: string }) => w.watch_id)).toContain(created.watch_id);
    expect(await listFor(other.client_id)).toMatchObject({ total: 0, watches: [] });
  });

  it('an error answer exits 1 with its status and detail', async () => {
    const missing = await call('getWatch', '--param', `watch_id=${randomUUID()}`);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: 404 \S/);
    expect(missing.stdout).toBe('');
  });

  it('refuses an unknown operationId, a missing path parameter, a parameter the operation lacks, and bad JSON', async () => {
    const unknown = await call('launchRocket');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: launchRocket is no operationId of the service's contract");

    const noId = await call('getWatch');
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('error: getWatch needs --param watch_id=… (path)');

    const foreign = await call('getWatch', '--param', 'watch_id=w', '--param', 'colour=red');
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('error: getWatch has no parameter colour; it takes watch_id (path)');

    const badJson = await call('createWatch', '--data', '{name:');
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('error: --data must be JSON');

    const noBody = await call('createWatch');
    expect(noBody.code).toBe(2);
    expect(noBody.stderr).toContain('error: createWatch needs a JSON body (--data)');
  });

  it("runs the console's CLI form of an action as written, through a shell, with the credential from the environment", async () => {
    const origin = ctx.api.url;
    const create: ApiCall = {
      operationId: 'createWatch',
      method: 'POST',
      path: WATCHES,
      // A name a shell would split, expand or end a quote on.
      body: { name: `Bakers' "best" $HOME & co`, maps_scrape: DAILY, cadence: { interval_seconds: 86_400 } },
    };
    const line = cliCommand(create, origin);
    expect(line).toMatch(/^LEAD_SERVICE_TOKEN=\$LEAD_SERVICE_TOKEN lead-service call createWatch /);
    expect(line).not.toContain(client.api_secret);
    const created = answer(await shell(line, client.triple));
    made.push(created.watch_id);
    expect(created.name).toBe(`Bakers' "best" $HOME & co`);

    const pause: ApiCall = {
      operationId: 'pauseWatch',
      method: 'POST',
      path: `${WATCHES}/{watch_id}/pause`,
      pathParams: { watch_id: created.watch_id },
    };
    expect(answer(await shell(cliCommand(pause, origin), client.triple))).toMatchObject({ state: 'paused' });

    const list: ApiCall = {
      operationId: 'listWatches',
      method: 'GET',
      path: WATCHES,
      query: { state: 'paused', page: 1, page_size: 10, sort: undefined },
    };
    const paused = answer(await shell(cliCommand(list, origin), client.triple));
    expect(paused.watches.map((w: { watch_id: string }) => w.watch_id)).toEqual([created.watch_id]);

    const asAdmin: ApiCall = {
      operationId: 'getWatch',
      method: 'GET',
      path: `${WATCHES}/{watch_id}`,
      pathParams: { watch_id: created.watch_id },
      headers: { 'X-Selected-Client-Id': client.client_id },
    };
    expect(answer(await shell(cliCommand(asAdmin, origin), ctx.admin))).toMatchObject({ state: 'paused' });
  });
});
