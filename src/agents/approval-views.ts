import { escapeHtml as h } from '../lib/html';
import type { AccessDecisionResult } from '../../workflows/access-request-api';
import type { AccessRequestDoc } from './access-request.model';

interface EmailInput {
  request: Pick<AccessRequestDoc, '_id' | 'owner_email' | 'project_name' | 'requested_scopes' | 'ttl_hours' | 'multi_brand' | 'fingerprint' | 'expires_at'>;
  clientName: string;
  approveUrl: string;
  denyUrl: string;
}

/** The approval e-mail: who asks, for what, for how long, from which machine, and the two links. */
export function approvalEmail({ request, clientName, approveUrl, denyUrl }: EmailInput) {
  const fingerprint = Object.entries((request.fingerprint ?? {}) as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`);
  const facts: [string, string][] = [
    ['Requested by', request.owner_email ?? 'unknown'],
    ['Project', request.project_name],
    ['Scopes', request.requested_scopes.join(', ')],
    ['Lifetime', `${request.ttl_hours} hours from approval`],
    ['Brands', request.multi_brand ? 'all active brands' : 'the oldest active brand'],
    ['Fingerprint', fingerprint.join('; ') || 'none given'],
    ['Request expires', request.expires_at.toISOString()],
  ];
  const subject = `Agent access request for ${clientName}: ${request.project_name}`;
  const text = [
    `An agent asks for access to ${clientName}.`, '',
    ...facts.map(([k, v]) => `${k}: ${v}`), '',
    `Approve: ${approveUrl}`, `Deny: ${denyUrl}`, '',
    'If you do not recognise this request, deny it or ignore it: it expires undecided.',
  ].join('\n');
  const html = `<p>An agent asks for access to <strong>${h(clientName)}</strong>.</p>
<table>${facts.map(([k, v]) => `<tr><th align="left">${h(k)}</th><td>${h(v)}</td></tr>`).join('')}</table>
<p><a href="${h(approveUrl)}">Approve</a> &nbsp; <a href="${h(denyUrl)}">Deny</a></p>
<p>If you do not recognise this request, deny it or ignore it: it expires undecided.</p>`;
  return { subject, text, html };
}

/** The page a person sees after following an approve or deny link. */
export function decisionPage(title: string, lines: string[]): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${h(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}</style>
</head><body><h1>${h(title)}</h1>${lines.map((l) => `<p>${h(l)}</p>`).join('')}</body></html>`;
}

export function decisionLines(d: AccessDecisionResult, scopes: string[]): string[] {
  if (d.status === 'denied') return ['The agent was denied access. It will see this the next time it checks.'];
  return [
    `The agent was granted ${scopes.join(', ')} until ${d.token_expires_at}.`,
    d.brand_ids.length ? `Brands: ${d.brand_ids.join(', ')}.` : 'No brand: the client has no active brand yet.',
    'The agent picks its token up the next time it checks; you can revoke it at any time.',
  ];
}
