/** The page a password-reset e-mail links to: it posts the token and the new password to the API. */
export function resetPasswordPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Reset your password</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}input,button{font:inherit;padding:.5rem;width:100%;margin:.5rem 0}</style>
</head><body>
<h1>Choose a new password</h1>
<form id="f"><label>New password (at least 10 characters)<input type="password" id="p" minlength="10" required></label>
<button>Set password</button></form><p id="m" role="status"></p>
<script>
const token = new URLSearchParams(location.search).get('token') || '';
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await fetch('/api/v1/auth/password-reset', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token, new_password: document.getElementById('p').value }) });
  const body = await r.json();
  document.getElementById('m').textContent = r.ok ? 'Your password was changed. You can sign in now.' : body.detail;
});
</script></body></html>`;
}
