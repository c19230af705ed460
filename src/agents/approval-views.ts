import { escapeHtml as h, tokenPageHeaders } from '../lib/html';
import type { Schemas } from '../lib/contract-types';
import type {
  AccessDecisionResult,
  AgentLimitValues,
  Approver,
  LimitField,
  Verdict,
} from '../../workflows/access-request-api';
import type { AccessRequestDoc } from './access-request.model';
import { limitValuesOf, type LimitOffer } from './agent-limits';

interface EmailInput {
  request: Pick<
    AccessRequestDoc,
    | '_id'
    | 'owner_email'
    | 'project_name'
    | 'requested_scopes'
    | 'ttl_hours'
    | 'multi_brand'
    | 'fingerprint'
    | 'expires_at'
    | 'profile'
  >;
  clientName: string;
  approver: Approver;
  approveUrl: string;
  denyUrl: string;
}

/** What approving would grant, as the approver's own links may grant it. */
function brandsLine(multiBrand: boolean, approver: Approver): string {
  if (approver.role === 'client_admin') return multiBrand ? 'all active brands' : 'the oldest active brand';
  return multiBrand
    ? "all active brands (only the client's administrator can approve this)"
    : 'the oldest active brand you administer';
}

const count = (n: number) => n.toLocaleString('en-US');
const usd = (n: number) => `USD ${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;

/** Limits as a person reads them: "3 requests per minute, no limit per day, no monthly budget". */
export function limitsInWords(l: AgentLimitValues): string {
  return [
    l.rate_limit_rpm === null ? 'no limit per minute' : `${count(l.rate_limit_rpm)} requests per minute`,
    l.rate_limit_rpd === null ? 'no limit per day' : `${count(l.rate_limit_rpd)} requests per day`,
    l.monthly_budget_usd === null ? 'no monthly budget' : `a monthly budget of ${usd(l.monthly_budget_usd)}`,
  ].join(', ');
}

function askedInWords(profile: unknown): string {
  const asked = limitValuesOf((profile ?? {}) as Record<string, unknown>);
  return Object.values(asked).every((v) => v === null) ? 'none' : limitsInWords(asked);
}

/** The approval e-mail: who asks, for what, for how long, from which machine, and the two links. */
export function approvalEmail({ request, clientName, approver, approveUrl, denyUrl }: EmailInput) {
  const fingerprint = Object.entries((request.fingerprint ?? {}) as Record<string, unknown>).map(
    ([k, v]) => `${k}: ${String(v)}`,
  );
  const facts: [string, string][] = [
    ['Requested by', request.owner_email ?? 'unknown'],
    ['Project', request.project_name],
    ['Scopes', request.requested_scopes.join(', ')],
    ['Lifetime', `${request.ttl_hours} hours from approval`],
    ['Limits asked', `${askedInWords(request.profile)} (you set them when you approve)`],
    ['Brands', brandsLine(request.multi_brand, approver)],
    ['Fingerprint', fingerprint.join('; ') || 'none given'],
    ['Request expires', request.expires_at.toISOString()],
  ];
  const subject = `Agent access request for ${clientName}: ${request.project_name}`;
  const text = [
    `An agent asks for access to ${clientName}.`,
    '',
    ...facts.map(([k, v]) => `${k}: ${v}`),
    '',
    `Approve: ${approveUrl}`,
    `Deny: ${denyUrl}`,
    '(Each link opens a page that asks you to confirm; nothing is decided until you press its button.)',
    '',
    'If you do not recognise this request, deny it or ignore it: it expires undecided.',
  ].join('\n');
  const html = `<p>An agent asks for access to <strong>${h(clientName)}</strong>.</p>
<table>${facts.map(([k, v]) => `<tr><th align="left">${h(k)}</th><td>${h(v)}</td></tr>`).join('')}</table>
<p><a href="${h(approveUrl)}">Approve</a> &nbsp; <a href="${h(denyUrl)}">Deny</a></p>
<p>If you do not recognise this request, deny it or ignore it: it expires undecided.</p>`;
  return { subject, text, html };
}

/**
 * Headers of every approval page: its URL carries the approval token, so it is never cached or sent on as a
 * referrer.
 */
export const APPROVAL_PAGE_HEADERS = tokenPageHeaders([
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
]);

const PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:34rem;margin:2.5rem auto;padding:0 1rem;line-height:1.45;' +
  'color:#1c1c1c}h1{font-size:1.5rem;margin:0 0 .75rem}.lead{font-size:1.1rem}' +
  'dl{display:grid;grid-template-columns:minmax(7rem,max-content) 1fr;gap:.45rem 1rem;margin:1.25rem 0}' +
  'dt{font-weight:600;color:#444}dd{margin:0;overflow-wrap:anywhere}dd ul{margin:0;padding-left:1.1rem}' +
  'code{font-size:.92em;background:#f2f2f2;padding:0 .2em;border-radius:3px}' +
  '.note,.small{color:#555;font-size:.9rem}.refused{color:#8a1c1c}' +
  '.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.5rem 0}.actions form{margin:0}' +
  'input{font-size:1rem;padding:.3rem .4rem;width:8rem;max-width:100%;border:1px solid #888;border-radius:4px}' +
  'button{font-size:1.05rem;padding:.6rem 1.2rem;border-radius:6px;border:1px solid #555;background:#fff;' +
  'cursor:pointer}button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}' +
  'button.deny.primary{background:#b91c1c;border-color:#b91c1c}' +
  '@media (max-width:30rem){dl{grid-template-columns:1fr}dt{margin-top:.4rem}}';

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${h(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>${PAGE_STYLE}</style>
</head><body><h1>${h(title)}</h1>${body}</body></html>`;

/** A small page of the approval flow: a title, lines of text, and optionally one form button. */
export function decisionPage(title: string, lines: string[], button?: { label: string; action: string }): string {
  const form = button
    ? `<form method="post" action="${h(button.action)}"><button type="submit">${h(button.label)}</button></form>`
    : '';
  return page(title, `${lines.map((l) => `<p>${h(l)}</p>`).join('')}${form}`);
}

/** What a decision would do, as the approve and deny links' pages show it (the contract's AccessDecisionPreview). */
export type DecisionPreview = Schemas['AccessDecisionPreview'];

/** The approve form's limit fields as a person filled them in, and what is wrong with each (a page shown again). */
export interface EnteredLimits {
  values: Partial<Record<LimitField, string>>;
  errors: { field: string; message: string }[];
}

/** Each scope as a person reads it: what a token with it may do (the contract's x-scopes). */
const SCOPE_WORDS: Record<string, string> = {
  'jobs:read': "read the client's jobs, their results and lead data, and follow job events",
  'jobs:submit':
    'start maps-scrape and research jobs, and pause, resume or cancel them; qualify, reject and tag lead data',
  'content:read': "read the client's site content",
  'content:write': 'create and edit posts, pages, authors, tags and categories',
  'content:deploy': "publish posts and pages (which calls the client's deploy hook)",
};
export const scopeInWords = (scope: string) => SCOPE_WORDS[scope] ?? `use the scope ${scope}`;

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** A lifetime in hours as a person says it: "72 hours (3 days)". */
export function hoursInWords(hours: number): string {
  if (hours < 24 || hours % 24) return plural(hours, 'hour');
  return `${plural(hours, 'hour')} (${plural(hours / 24, 'day')})`;
}

const ABSOLUTE = new Intl.DateTimeFormat('en-GB', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZone: 'UTC',
  timeZoneName: 'short',
});
const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/**
 * A moment as a person reads it: relative to now ("in 23 hours") and absolute with its zone ("Friday 14 March
 * 2025 at 09:40 UTC"). The page runs no script, so it cannot know the reader's zone: it names UTC.
 */
export function momentInWords(at: Date, now: Date): { relative: string; absolute: string } {
  const minutes = Math.round((at.getTime() - now.getTime()) / 60_000);
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] =
    Math.abs(minutes) < 60
      ? [minutes, 'minute']
      : Math.abs(minutes) < 48 * 60
        ? [Math.round(minutes / 60), 'hour']
        : [Math.round(minutes / 1440), 'day'];
  const part = Object.fromEntries(ABSOLUTE.formatToParts(at).map((p) => [p.type, p.value]));
  const date = `${part.weekday} ${part.day} ${part.month} ${part.year}`;
  const absolute = `${date} at ${part.hour}:${part.minute} ${part.timeZoneName}`;
  return { relative: RELATIVE.format(value, unit), absolute };
}

const FINGERPRINT_SHOWN = ['agent_type', 'hostname', 'cwd', 'platform'];
const text = (v: unknown) =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

/** The agent's fingerprint as the agent reported it: its type, host, working directory, then anything else. */
function fingerprintHtml(f: Record<string, unknown>): string {
  const type = text(f.agent_type) || 'unknown';
  const host = text(f.hostname);
  const cwd = text(f.cwd);
  const platform = text(f.platform);
  const lines = [
    `<strong>${h(type)}</strong>${host ? ` on <strong>${h(host)}</strong>` : ' (host not given)'}` +
      (platform ? ` (${h(platform)})` : ''),
    cwd ? `working directory <code>${h(cwd)}</code>` : 'working directory not given',
  ];
  const others = Object.entries(f)
    .filter(([k, v]) => !FINGERPRINT_SHOWN.includes(k) && text(v))
    .slice(0, 8)
    .map(([k, v]) => `${h(k.replace(/_/g, ' '))}: ${h(text(v).slice(0, 200))}`);
  if (others.length) lines.push(`<span class="note">also reported: ${others.join('; ')}</span>`);
  return lines.join('<br>');
}

/** The approve form's id: the limit fields, shown among the facts, belong to it (their `form` attribute). */
const APPROVE_FORM = 'approve-form';

/** The form that makes one decision: a POST to that decision's link, with the same approval token. */
function decisionButton(verdict: Verdict, token: string, primary: boolean): string {
  const [path, label, cls] =
    verdict === 'approved' ? ['approve', 'Approve access', 'approve'] : ['deny', 'Deny access', 'deny'];
  const action = `${path}?approval_token=${encodeURIComponent(token)}`;
  const id = verdict === 'approved' ? ` id="${APPROVE_FORM}"` : '';
  return (
    `<form method="post"${id} action="${h(action)}">` +
    `<button type="submit" id="${cls}" class="${cls}${primary ? ' primary' : ''}">${h(label)}</button></form>`
  );
}

/** Each limit's field on the approval page: its label, the input's bounds, and how the offer came about. */
const LIMIT_INPUTS: { field: LimitField; label: string; attributes: string }[] = [
  { field: 'rate_limit_rpm', label: 'Requests per minute', attributes: 'min="1" max="1000000" step="1"' },
  { field: 'rate_limit_rpd', label: 'Requests per day', attributes: 'min="1" max="100000000" step="1"' },
  { field: 'monthly_budget_usd', label: 'Monthly budget (USD)', attributes: 'min="0" max="1000000" step="any"' },
];

function offerNote(field: LimitField, offer: LimitOffer): string {
  const asked = offer.requested[field];
  if (asked !== null) return `asked for ${asked}`;
  if (field === 'rate_limit_rpm' && offer.brand_default_rpm !== null)
    return `not asked; the brand's default is ${offer.brand_default_rpm}`;
  return 'not asked';
}

/**
 * The limits an approval grants: fields of the approve form filled with the offer (or what the approver entered,
 * with what is wrong with it) for an approver who may approve a pending request; otherwise the offer in words.
 */
function limitRows(p: DecisionPreview, entered: EnteredLimits | undefined): [string, string][] {
  if (p.status !== 'pending' || !p.decisions.approved.can_decide)
    return [['Limits', h(limitsInWords(p.limits.offered))]];
  return LIMIT_INPUTS.map(({ field, label, attributes }) => {
    const offered = p.limits.offered[field];
    const value = entered?.values[field] ?? (offered === null ? '' : String(offered));
    const errors = (entered?.errors ?? []).filter((e) => e.field === field).map((e) => e.message);
    const input =
      `<input type="number" id="${field}" name="${field}" form="${APPROVE_FORM}" ${attributes} ` +
      `inputmode="decimal" value="${h(value)}">`;
    const note = `<span class="note">${h(offerNote(field, p.limits))}; empty: no limit</span>`;
    const error = errors.length ? `<br><span class="refused">${h(errors.join('; '))}</span>` : '';
    return [`<label for="${field}">${h(label)}</label>`, `${input} ${note}${error}`];
  });
}

/**
 * The confirmation page an approve or deny link opens: who asks, for which client and brands, from which
 * machine, to do what, for how long and until when it can be decided, and both decisions as buttons (the
 * link's own first), each a POST; a GET decides nothing. Everything the agent or a user supplied is escaped.
 */
export function confirmationPage(
  p: DecisionPreview,
  approvalToken: string,
  opts: { now?: Date; entered?: EnteredLimits } = {},
): string {
  const now = opts.now ?? new Date();
  const approve = p.verdict === 'approved';
  const title = approve ? `Approve access for ${p.project_name}?` : `Deny access for ${p.project_name}?`;
  const client = p.client_name ?? 'this client';
  const brands = p.brands.length
    ? p.brands.map((b) => h(b.name)).join(', ') + (p.multi_brand ? ' (all active brands)' : '')
    : p.decisions.approved.can_decide
      ? 'none yet (the client has no active brand)'
      : '—';
  const scopeItems = p.requested_scopes.map((s) => `<li>${h(scopeInWords(s))} <code>${h(s)}</code></li>`);
  const scopes = `<ul>${scopeItems.join('')}</ul>`;
  const expires = momentInWords(new Date(p.expires_at), now);
  // Each row: its term and its description, both HTML (the terms are fixed words, or a field's label).
  const rows: [string, string][] = [
    ['Client', `<strong>${h(client)}</strong>`],
    ['Requested by', `${h(p.owner_email ?? 'no address given')} <span class="note">(as the agent gives it)</span>`],
    ['Agent', fingerprintHtml(p.fingerprint ?? {})],
    [approve ? 'Approving lets it' : 'It asks to', scopes],
    ['In brands', brands],
    ['For', `${h(hoursInWords(p.ttl_hours))} from approval`],
    ...limitRows(p, opts.entered),
    [
      p.status === 'pending' ? 'Decide by' : 'Request expiry',
      `${h(expires.relative)}, <time datetime="${h(p.expires_at)}">${h(expires.absolute)}</time>` +
        (p.status === 'pending' ? '<br><span class="note">then it expires undecided</span>' : ''),
    ],
  ];
  const facts =
    `<p class="lead">An AI agent, <strong>${h(p.project_name)}</strong>, asks for access to ` +
    `<strong>${h(client)}</strong>.</p>` +
    `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`;
  const order: Verdict[] = approve ? ['approved', 'denied'] : ['denied', 'approved'];
  const buttons = order
    .filter((v) => p.decisions[v].can_decide)
    .map((v) => decisionButton(v, approvalToken, v === p.verdict));
  const refusals = [...new Set(order.filter((v) => !p.decisions[v].can_decide).map((v) => p.decisions[v].reason))]
    .filter((r): r is string => Boolean(r))
    .map((r) => `<p class="refused">${h(r)}</p>`);
  if (opts.entered?.errors.length)
    refusals.unshift('<p class="refused">Nothing was decided: a limit below is not valid.</p>');
  const actions = buttons.length ? `<div class="actions">${buttons.join('')}</div>` : '';
  const note =
    '<p class="note">Every agent token may also look up and reserve pin names (a reservation sends the end user ' +
    "a signup SMS or e-mail) and call its brands' integrations (maps, parcel tracking, messaging) at the " +
    "brand's cost.</p>" +
    (buttons.length
      ? '<p class="small">Nothing is decided until you press a button. If you do not recognise this request, deny ' +
        "it; an approved agent can be revoked at any time, and its limits changed in its brands' agent users.</p>"
      : '');
  return page(title, facts + refusals.join('') + actions + note);
}

export function decisionLines(
  d: AccessDecisionResult,
  scopes: string[],
  brands: { brand_id: number; name: string }[],
  now = new Date(),
): string[] {
  if (d.status === 'denied') return ['The agent was denied access. It will see this the next time it checks.'];
  const until = d.token_expires_at ? momentInWords(new Date(d.token_expires_at), now) : null;
  return [
    `The agent was granted: ${scopes.map(scopeInWords).join('; ')}.`,
    until ? `Until ${until.absolute} (${until.relative}).` : 'Its token does not expire.',
    brands.length
      ? `Brands: ${brands.map((b) => b.name).join(', ')}.`
      : 'No brand: the client has no active brand yet.',
    ...(d.limits ? [`Limits: ${limitsInWords(d.limits)}.`] : []),
    'The agent picks its token up the next time it checks; you can revoke it at any time.',
  ];
}
