import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { useTestApi } from '../support/harness';

/**
 * What separates a linear reading of a header from a backtracking one, not a speed target: the session-cookie
 * pattern this replaced took 4.5 s on 3,000 spaces and grows with their cube (many minutes at 16 KB), a linear
 * reading takes microseconds. One second sits far from both, so a loaded CI machine does not fail it and a
 * backtracking pattern cannot pass it.
 */
const BOUND_MS = 1_000;

/** One GET with raw headers; resolves with its status and how long it took from the moment it was sent. */
function timedGet(url: string, headers: Record<string, string>, sent?: () => void) {
  const started = performance.now();
  return new Promise<{ status: number; ms: number }>((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.on('finish', () => sent?.());
  });
}

describe('a hostile Cookie header', () => {
  const ctx = useTestApi();

  it.each([
    ['3,000 spaces', 3_000],
    ['spaces up to the 16 KB header limit', 16_000],
  ])('with %s is answered 401 at once, and so is a request sent meanwhile', async (_name, spaces) => {
    const cookie = `lead_session=${' '.repeat(spaces)}"`;
    let meanwhile!: Promise<{ status: number; ms: number }>;
    const hostile = await timedGet(`${ctx.api.url}/api/v1/dashboard/me`, { cookie }, () => {
      // Sent once the hostile request is on the wire: the process reads it first, so this one waits if it stalls.
      meanwhile = timedGet(`${ctx.api.url}/healthz`, {});
    });
    const other = await meanwhile;
    expect({ hostile: hostile.status, other: other.status }).toEqual({ hostile: 401, other: 200 });
    expect(hostile.ms).toBeLessThan(BOUND_MS);
    expect(other.ms).toBeLessThan(BOUND_MS);
  });

  it('still reads a well-formed session cookie', async () => {
    const headers = { cookie: `theme=dark; lead_session="${ctx.admin}"; lang=en` };
    const res = await timedGet(`${ctx.api.url}/api/v1/dashboard/me`, headers);
    expect(res.status).toBe(200);
  });
});

describe('a hostile Content-Type or Accept header', () => {
  const ctx = useTestApi();
  // Public, so anyone can send it; validated, so the request validator reads the headers.
  const publicStatus = () => `${ctx.api.url}/api/v1/auth/pat/request/00000000-0000-4000-8000-000000000000/status`;

  // The validator reads both in quadratic time (Accept where responses are validated, as in tests).
  it.each([
    ['Content-Type', 'content-type', 256],
    ['Accept', 'accept', 1024],
  ])('%s longer than its bound is answered 431 before anything reads it', async (name, header, bound) => {
    const headers = { [header]: `a/b${';'.repeat(15_000)}` };
    const res = await fetch(publicStatus(), { headers });
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({ detail: `${name} is 15003 characters long; at most ${bound} are read` });
    // Before credentials too: an authenticated operation answers the same.
    expect((await fetch(`${ctx.api.url}/api/v1/dashboard/me`, { headers })).status).toBe(431);
  });

  it('at their bounds, both are read as usual', async () => {
    const longest = (type: string, bound: number) => `${type}; x=${'y'.repeat(bound - `${type}; x=`.length)}`;
    const headers = { 'content-type': longest('application/json', 256), accept: longest('application/json', 1024) };
    expect([headers['content-type'].length, headers.accept.length]).toEqual([256, 1024]);
    const res = await fetch(publicStatus(), { headers });
    // The validator's answer: the operation's required poll_token is missing.
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/poll_token/);
  });
});

describe('the lint', () => {
  it('fails a pattern that backtracks super-linearly (the session-cookie pattern this replaced)', async () => {
    const probe = 'export const COOKIE = /(?:^|;)\\s*lead_session\\s*=\\s*("?)([^";]*)\\1\\s*(?:;|$)/;\n';
    const root = path.resolve(__dirname, '../..');
    const eslint = path.join(root, 'node_modules/eslint/bin/eslint.js');
    const run = promisify(execFile)(process.execPath, [eslint, '--stdin', '--stdin-filename', 'src/probe.ts'], {
      cwd: root,
    });
    // Feed the probe on standard input; eslint exits 1 when it reports an error.
    run.child.stdin!.end(probe);
    const failed = await run.then(
      () => null,
      (err: { code: number; stdout: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(/regexp\/no-super-linear-backtracking/);
  }, 60_000);
});
