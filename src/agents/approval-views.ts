import { escapeHtml as h, tokenPageHeaders } from '../lib/html';
import type { AccessDecisionResult, Approver } from '../../workflows/access-request-api';
import type { AccessRequestDoc } from './access-request.model';

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
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}' +
  'button{font-size:1.1rem;padding:.6rem 1.2rem}';

/** A small page of the approval flow: a title, lines of text, and optionally one form button. */
export function decisionPage(title: string, lines: string[], button?: { label: string; action: string }): string {
  const form = button
    ? `<form method="post" action="${h(button.action)}"><button type="submit">${h(button.label)}</button></form>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${h(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>${PAGE_STYLE}</style>
</head><body><h1>${h(title)}</h1>${lines.map((l) => `<p>${h(l)}</p>`).join('')}${form}</body></html>`;
}

export interface DecisionPreview {
  status: string;
  verdict: 'approved' | 'denied';
  project_name: string;
  owner_email: string | null;
  requested_scopes: string[];
  ttl_hours: number;
  brand_ids: number[];
  expires_at: string;
  can_decide: boolean;
  reason: string | null;
}

/**
 * The confirmation page an approve or deny link opens: what the decision would do, and the one button that
 * makes it.
 */
export function confirmationPage(p: DecisionPreview, action: string): string {
  const approve = p.verdict === 'approved';
  const title = approve ? `Approve access for ${p.project_name}?` : `Deny access for ${p.project_name}?`;
  const scopes = p.requested_scopes.join(', ');
  const brands = p.brand_ids.length
    ? `brands ${p.brand_ids.join(', ')}`
    : 'no brand (the client has no active brand yet)';
  const lines = [
    `Requested by ${p.owner_email ?? 'an unnamed agent owner'}.`,
    approve
      ? `It would be granted ${scopes} for ${p.ttl_hours} hours, in ${brands}.`
      : `It asked for ${scopes}; the agent will see that it was denied.`,
  ];
  if (!p.can_decide) return decisionPage(title, [...lines, p.reason ?? 'This link cannot decide.']);
  return decisionPage(title, [...lines, `The request expires undecided at ${p.expires_at}.`], {
    label: approve ? 'Approve access' : 'Deny access',
    action,
  });
}

export function decisionLines(d: AccessDecisionResult, scopes: string[]): string[] {
  if (d.status === 'denied') return ['The agent was denied access. It will see this the next time it checks.'];
  return [
    `The agent was granted ${scopes.join(', ')} until ${d.token_expires_at}.`,
    d.brand_ids.length ? `Brands: ${d.brand_ids.join(', ')}.` : 'No brand: the client has no active brand yet.',
    'The agent picks its token up the next time it checks; you can revoke it at any time.',
  ];
}
