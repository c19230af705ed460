import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { CONSOLE_CSP, serveConsole } from '../../src/console/serve-console';

/** What docs/console.md says of how the console is served: caching, the SPA fallback, the CSP, a missing build. */
describe('the console as the API serves it', () => {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'console-dist-'));
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
  fs.writeFileSync(path.join(dist, 'assets', 'index-3f2a1b.js'), 'console.log(1)');
  let base = '';
  let close: () => void;

  beforeAll(async () => {
    const app = express();
    app.use('/console', serveConsole(dist));
    app.use('/missing', serveConsole(path.join(dist, 'nothing-here')));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it('hashed assets are immutable for a year; the HTML is never cached; every page carries the CSP', async () => {
    const asset = await fetch(`${base}/console/assets/index-3f2a1b.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const html = await fetch(`${base}/console/`);
    expect(html.headers.get('cache-control')).toBe('no-cache');
    for (const res of [asset, html]) expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).not.toMatch(/https?:/);
  });

  it('a deep link answers the app (its router draws it); a missing asset is a 404, not the app', async () => {
    const deep = await fetch(`${base}/console/jobs/4b3f0000-0000-4000-8000-000000000000?tab=events`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root">');
    expect((await fetch(`${base}/console/assets/gone-000000.js`)).status).toBe(404);
  });

  it('without a build it says how to make one', async () => {
    const res = await fetch(`${base}/missing/jobs`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run console:build');
  });
});
