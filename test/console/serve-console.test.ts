import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { CONSOLE_CSP } from '../../src/console/serve-console';
import { useTestApi, type TestApi } from '../support/harness';

/** A console build of the shape Vite makes (index.html and content-hashed assets), independent of a real build. */
const BUILT = fs.mkdtempSync(path.join(os.tmpdir(), 'console-dist-'));
const INDEX =
  '<!doctype html><html><head><script type="module" src="/console/assets/app-abc123.js"></script></head></html>';
const ASSET = 'console.log("the console");\n';
fs.mkdirSync(path.join(BUILT, 'assets'));
fs.writeFileSync(path.join(BUILT, 'index.html'), INDEX);
fs.writeFileSync(path.join(BUILT, 'assets', 'app-abc123.js'), ASSET);
/** A directory with no build in it. */
const EMPTY = fs.mkdtempSync(path.join(os.tmpdir(), 'console-none-'));
afterAll(() => {
  fs.rmSync(BUILT, { recursive: true, force: true });
  fs.rmSync(EMPTY, { recursive: true, force: true });
});

const get = async (api: TestApi, p: string) => {
  const res = await fetch(`${api.url}${p}`, { redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

const rawGet = (api: TestApi, p: string) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    http
      .get(`${api.url}${p}`, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      })
      .on('error', reject);
  });

/** Sources a CSP directive may name without naming another origin. */
const OWN_SOURCES = new Set(["'self'", "'none'", "'unsafe-inline'", 'data:', 'blob:']);

describe('the console served under /console', () => {
  const ctx = useTestApi({ CONSOLE_DIST_DIR: BUILT });

  it.each(['/console', '/console/', '/console/any/deep/link', '/console/jobs/abc?status=running&sort=-created_at'])(
    '%s answers index.html, not cached, with the CSP',
    async (p) => {
      const res = await get(ctx.api, p);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toBe(INDEX);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
    },
  );

  it('answers a hashed asset as immutable for a year', async () => {
    const res = await get(ctx.api, '/console/assets/app-abc123.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(res.text).toBe(ASSET);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
  });

  it.each(['/console/assets/app-gone99.js', '/console/assets/deep/missing.css', '/console/assets/..%2findex.html'])(
    'answers %s, which is no asset, 404 rather than index.html',
    async (p) => {
      // Sent as written (fetch would resolve dot segments before sending).
      const res = await rawGet(ctx.api, p);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('<!doctype html>');
      expect(res.headers['cache-control'] ?? '').not.toMatch(/immutable/);
    },
  );

  it('names no foreign origin in its CSP: every source is the page itself, data: or blob:', async () => {
    const csp = (await get(ctx.api, '/console')).headers.get('content-security-policy')!;
    const directives = csp.split(';').map((d) => d.trim().split(/\s+/));
    expect(directives.map(([name]) => name)).toEqual(
      expect.arrayContaining(['default-src', 'script-src', 'connect-src', 'frame-ancestors', 'object-src']),
    );
    for (const [name, ...sources] of directives) {
      expect(sources.length).toBeGreaterThan(0);
      for (const source of sources) expect({ name, source, own: OWN_SOURCES.has(source) }).toMatchObject({ own: true });
    }
    const sourcesOf = (name: string) => directives.find(([n]) => n === name)!.slice(1);
    expect(sourcesOf('script-src')).toEqual(["'self'"]); // no inline script, no eval
    expect(sourcesOf('connect-src')).toEqual(["'self'"]);
    expect(sourcesOf('frame-ancestors')).toEqual(["'none'"]);
  });
});

describe('the console before it is built', () => {
  const ctx = useTestApi({ CONSOLE_DIST_DIR: EMPTY });

  it.each(['/console', '/console/any/deep/link'])('%s answers 503 saying how to build it', async (p) => {
    const res = await get(ctx.api, p);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/not built/);
    expect(res.text).toContain('npm run console:build');
    expect(res.headers.get('cache-control') ?? '').not.toMatch(/max-age=31536000/);
  });

  it('answers a missing asset 404', async () => {
    expect((await get(ctx.api, '/console/assets/app-abc123.js')).status).toBe(404);
  });
});
