import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { escapeHtml as h, tokenPageHeaders } from '../../lib/html';
import { AppError } from '../../lib/errors';
import type { SignupService } from './signup.service';

/** The browser maps script a brand's own key loads; only then is the map (and this origin in the CSP) on the page. */
const MAPS_ORIGIN = 'https://maps.googleapis.com';
const ADDRESS_FIELDS: [string, string, boolean][] = [
  ['address_road', 'Street', false],
  ['address_house_number', 'House number', false],
  ['address_addition', 'Addition', false],
  ['address_postcode', 'Postcode', false],
  ['address_settlement', 'Town or city', true],
  ['address_region', 'Region', false],
  ['address_contact_name', 'Contact name', false],
];

const STYLE = [
  '*{box-sizing:border-box}',
  'body{font-family:system-ui,sans-serif;max-width:34rem;margin:0 auto;padding:1rem;line-height:1.4}',
  'h1{font-size:1.4rem;overflow-wrap:anywhere}',
  'fieldset{border:1px solid #ccc;border-radius:.5rem;margin:1rem 0;padding:.75rem}',
  'label{display:block;margin:.4rem 0}',
  'input,button{font:inherit;padding:.6rem;width:100%;margin-top:.2rem}',
  'button{cursor:pointer}',
  '.row{display:flex;gap:.5rem}',
  '.row>*{flex:1;min-width:0}',
  '#map{height:16rem;border-radius:.5rem;margin:.5rem 0}',
  'ul{padding-left:1.2rem}',
  '.muted{color:#555;font-size:.9rem}',
  '[role=status]{font-weight:600;overflow-wrap:anywhere}',
].join('\n');

function shell(nonce: string, title: string, body: string, script = ''): string {
  const scriptTag = script ? `<script nonce="${nonce}">${script}</script>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${h(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style nonce="${nonce}">${STYLE}</style></head><body>${body}${scriptTag}</body></html>`;
}

function headers(res: Response, nonce: string, withMap: boolean) {
  const maps = withMap ? ` ${MAPS_ORIGIN}` : '';
  res.set(
    tokenPageHeaders([
      "default-src 'none'",
      `script-src 'nonce-${nonce}'${maps}`,
      `style-src 'nonce-${nonce}'${withMap ? " 'unsafe-inline'" : ''}`,
      `connect-src 'self'${maps}`,
      `img-src 'self' data:${withMap ? ' https://*.gstatic.com https://*.googleapis.com' : ''}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]),
  );
}

/** The claim page; the script reads the token from the URL and calls the signup API (check-name, complete). */
function claimPage(nonce: string, claim: Awaited<ReturnType<SignupService['resolve']>>): string {
  const key = claim.maps_byok_key_or_null;
  const fields = ADDRESS_FIELDS.map(([f, label, required]) => {
    const input = `<input name="${f}" id="${f}"${required ? ' required' : ''} maxlength="200">`;
    return `<label>${h(label)}${required ? ' *' : ''}${input}</label>`;
  }).join('');
  const otherName = '<input id="other-name" aria-label="Another name" maxlength="64" autocapitalize="characters">';
  const coordinate = (id: string, label: string) =>
    `<label>${label}<input id="${id}" inputmode="decimal" required></label>`;
  const body = `<h1>Claim <span id="pin-name">${h(claim.country_code)}:${h(claim.name)}</span></h1>
<p>The name <strong>${h(claim.name)}</strong> in <strong>${h(claim.country_code)}</strong> is reserved for you.
The link was sent to <span id="identifier">${h(claim.identifier_masked)}</span>.</p>
<fieldset><legend>Try another name</legend>
<div class="row">${otherName}<button id="check" type="button">Check</button></div>
<p id="check-result" role="status"></p><ul id="suggestions"></ul>
<p class="muted">To claim a different name, ask for a new link for it.</p></fieldset>
<form id="claim"><fieldset><legend>Where is it?</legend>
${key ? `<div id="map" data-key="${h(key)}"></div>` : ''}
<button id="locate" type="button">Use my location</button>
<div class="row">${coordinate('lat', 'Latitude')}${coordinate('lng', 'Longitude')}</div>
${fields}</fieldset>
<button id="complete" type="submit">Claim ${h(claim.name)}</button></form>
<p id="result" role="status"></p>`;
  const script = `
const token = new URLSearchParams(location.search).get('token') || '';
const claim = ${JSON.stringify({ name: claim.name, country_code: claim.country_code }).replace(/</g, '\\u003c')};
const $ = (id) => document.getElementById(id);
const setPoint = (lat, lng) => { $('lat').value = lat.toFixed(6); $('lng').value = lng.toFixed(6); };
$('check').addEventListener('click', async () => {
  const name = $('other-name').value.trim();
  $('suggestions').replaceChildren();
  if (!name) return;
  const r = await fetch('/api/v1/signup/check-name?token=' + encodeURIComponent(token) +
    '&name=' + encodeURIComponent(name));
  const b = await r.json().catch(() => ({}));
  if (!r.ok) { $('check-result').textContent = b.detail || 'Could not check this name'; return; }
  $('check-result').textContent = b.is_available ? name.toUpperCase() + ' is free' : name.toUpperCase() + ' is taken';
  for (const s of b.suggestions) {
    const li = document.createElement('li'); li.textContent = s; $('suggestions').append(li);
  }
});
$('locate').addEventListener('click', () => {
  if (!navigator.geolocation) { $('result').textContent = 'Location is not available: type the coordinates'; return; }
  navigator.geolocation.getCurrentPosition((p) => setPoint(p.coords.latitude, p.coords.longitude),
    () => { $('result').textContent = 'Location was not shared: type the coordinates'; });
});
$('claim').addEventListener('submit', async (e) => {
  e.preventDefault();
  const lat = Number($('lat').value), lng = Number($('lng').value);
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) {
    $('result').textContent = 'Enter a valid latitude and longitude'; return;
  }
  const structured_address = {};
  for (const f of ${JSON.stringify(ADDRESS_FIELDS.map(([f]) => f))}) {
    const v = $(f).value.trim(); if (v) structured_address[f] = v;
  }
  $('complete').disabled = true;
  const r = await fetch('/api/v1/signup/complete', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token, name: claim.name, country_code: claim.country_code, lat, lng,
      structured_address }) });
  const b = await r.json().catch(() => ({}));
  $('complete').disabled = r.ok;
  $('result').textContent = !r.ok ? (b.detail || 'The claim failed')
    : b.state === 'done' ? 'Your pin ' + b.pin_id + ' is live.' : 'Your pin ' + b.pin_id + ' is being created.';
});
${
  key
    ? `window.initMap = () => {
  const start = { lat: Number($('lat').value) || 52.1, lng: Number($('lng').value) || 5.1 };
  const map = new google.maps.Map($('map'), { center: start, zoom: 7 });
  const marker = new google.maps.Marker({ position: start, map, draggable: true });
  const moved = (p) => setPoint(p.lat(), p.lng());
  marker.addListener('dragend', () => moved(marker.getPosition()));
  map.addListener('click', (e) => { marker.setPosition(e.latLng); moved(e.latLng); });
};
const s = document.createElement('script');
s.src = '${MAPS_ORIGIN}/maps/api/js?callback=initMap&key=' + encodeURIComponent($('map').dataset.key);
s.nonce = document.currentScript.nonce; document.head.append(s);`
    : ''
}`;
  return shell(nonce, `Claim ${claim.country_code}:${claim.name}`, body, script);
}

/** GET /signup?token=...: the claim page, or a page saying why the link does not work (401 or 410). */
export function signupPage(signup: SignupService) {
  return async (req: Request, res: Response) => {
    const nonce = randomBytes(16).toString('base64');
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    try {
      if (!token) throw AppError.unauthorized('This link has no signup token');
      const claim = await signup.resolve(token);
      headers(res, nonce, claim.maps_byok_key_or_null !== null);
      res.type('html').send(claimPage(nonce, claim));
    } catch (err) {
      if (!(err instanceof AppError) || (err.status !== 401 && err.status !== 410)) throw err;
      headers(res, nonce, false);
      const why =
        err.status === 410
          ? 'This link is from an older version. Ask for a fresh link.'
          : 'This link is invalid or has expired. Ask for a fresh link.';
      res
        .status(err.status)
        .type('html')
        .send(shell(nonce, 'Link not valid', `<h1>Link not valid</h1><p id="result" role="status">${h(why)}</p>`));
    }
  };
}
