import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { OPENAPI_PATH } from '../lib/http/openapi-spec';

/** console/dist beside openapi.yaml at the project root, found the same way from src/ (tsx, Jest) and dist/. */
export const CONSOLE_DIST = path.join(path.dirname(OPENAPI_PATH), 'console', 'dist');

/**
 * The console's pages may load and call only this origin: no CDN, no foreign script, style, font, frame or
 * connection. Inline styles are allowed for the style attributes and the <style> elements the component library
 * sets at run time (positioning of popovers, scroll locking); scripts are never inline. Images may also be data:
 * and blob: URLs (an upload's preview before it is sent).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(res: Response) {
  res.set({
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
  });
}

/**
 * GET /console/*: the console built by Vite. Its assets are named by their content's hash, so they are cached for a
 * year as immutable; index.html is never cached (a new build is picked up at the next load) and answers every other
 * path of the console (the app's own router draws deep links). Without a build it says how to make one.
 */
export function serveConsole(distDir = CONSOLE_DIST): Router {
  const router = express.Router();
  const dist = path.resolve(distDir);
  const index = path.join(dist, 'index.html');
  router.use((_req, res, next) => {
    securityHeaders(res);
    next();
  });
  router.use('/assets', express.static(path.join(dist, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  // What is not a file there (a build's old asset, a path that leaves the directory) is 404, never index.html: a
  // script tag answered with a page fails to parse, and the error handler would make the static's error a 500.
  router.use('/assets', (_req, res) => {
    res.status(404).type('text/plain').send('No such asset in this build of the console.');
  });
  const page = (_req: Request, res: Response) => {
    if (!fs.existsSync(index)) {
      res
        .status(503)
        .type('text/plain')
        .send('The console is not built yet: `npm run console:build` (npm start builds it when it is missing or old).');
      return;
    }
    res.set('Cache-Control', 'no-cache');
    res.sendFile(index);
  };
  router.get('/', page);
  router.get('/{*deepLink}', page);
  return router;
}
