import type { Request, Response } from 'express';
import { cspHash, tokenPageHeaders } from '../lib/html';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}' +
  'input,button{font:inherit;padding:.5rem;width:100%;margin:.5rem 0}';

const SCRIPT = `
const token = new URLSearchParams(location.search).get('token') || '';
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await fetch('/api/v1/auth/password-reset', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token, new_password: document.getElementById('p').value }),
  });
  const body = await r.json().catch(() => ({}));
  document.getElementById('m').textContent = r.ok
    ? 'Your password was changed. You can sign in now.' : body.detail || 'Something went wrong';
});
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Reset your password</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>${STYLE}</style>
</head><body>
<h1>Choose a new password</h1>
<form id="f"><label>New password (at least 10 characters)<input type="password" id="p" minlength="10" required></label>
<button>Set password</button></form><p id="m" role="status"></p>
<script>${SCRIPT}</script></body></html>`;

/**
 * The page is static, so its one script and one style are admitted by hash and nothing else runs: no inline
 * script an injection could add, no other origin. It talks to this API only; its form never submits itself.
 */
const HEADERS = tokenPageHeaders([
  "default-src 'none'",
  `script-src ${cspHash(SCRIPT)}`,
  `style-src ${cspHash(STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
]);

/** GET /reset-password?token=...: the page a reset e-mail links to; it posts the token and new password to the API. */
export function sendResetPasswordPage(_req: Request, res: Response): void {
  res.set(HEADERS).type('html').send(PAGE);
}
