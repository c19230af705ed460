import { BrandModel } from '../../src/brands/brand.model';
import { eventually, type TestApi } from '../support/harness';

import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/** Brands made directly in the store, oldest (lowest id) first. */
export async function brandsFor(clientId: string, ids: number[]) {
  for (const id of ids)
    await BrandModel.create({ _id: id, client_id: clientId, brand_name: `Brand ${id}`, slug: `brand-${id}` });
}

/** The approval e-mail sent to `to`, as the outbox holds it (with every link in it). */
export async function approvalMail(api: TestApi, admin: string, to: string, requestId: string) {
  return eventually(async () => {
    const res = await api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(to)}`, {
      token: admin,
    });
    return res.body.messages.find((m: { links: string[] }) => m.links.some((l) => l.includes(requestId)));
  });
}

export const linkOf = (mail: { links: string[] }, verdict: 'approve' | 'deny') =>
  mail.links.find((l) => l.includes(`/${verdict}?`))!;

/**
 * Decides through a link as a JSON client does: a POST to the link's URL (following it with a GET decides nothing),
 * with the approver's changes to the limits offered as its body when given.
 */
export const decideByLink = (link: string, limits?: Record<string, unknown>) =>
  fetch(link, {
    method: 'POST',
    headers: { accept: 'application/json', ...(limits ? { 'content-type': 'application/json' } : {}) },
    body: limits ? JSON.stringify(limits) : undefined,
  });

/**
 * Polls at the pace the service allows (a poll within its interval of the last one answered is refused 429
 * slow_down, and refused polls do not move that interval) until `accept` says yes.
 */
export async function pollUntil(
  api: TestApi,
  receipt: { poll_url: string },
  accept: (body: any) => boolean,
  timeoutMs = 30_000,
) {
  return eventually(
    async () => {
      const res = await api.call('GET', receipt.poll_url);
      if (res.status !== 200 && res.status !== 429) throw new Error(`poll: ${res.status} ${JSON.stringify(res.body)}`);
      return res.status === 200 && accept(res.body) ? res.body : undefined;
    },
    timeoutMs,
    250,
    'the poll',
  );
}

/** The next poll the service answers, once its interval since the last one answered has passed. */
export const nextPoll = (api: TestApi, receipt: { poll_url: string }) => pollUntil(api, receipt, () => true);

export async function requestAccess(api: TestApi, clientId: string, body: Record<string, unknown> = {}) {
  const res = await api.call('POST', '/api/v1/auth/pat/request', {
    body: {
      client_id: clientId,
      owner_email: 'dev@agency.test',
      project_name: 'lead-finder',
      requested_scopes: ['jobs:read'],
      ...body,
    },
  });
  if (res.status !== 200) throw new Error(`request: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Follows the approve link as a client asking for JSON (with the approver's changes to the limits offered, when
 * given); returns the token the agent then picks up.
 */
export async function approvedToken(
  api: TestApi,
  admin: string,
  client: { client_id: string; admin_email: string },
  body: Record<string, unknown> = {},
  limits?: Record<string, unknown>,
) {
  return approve(api, admin, client, await requestAccess(api, client.client_id, body), limits);
}

/** No limit at all: what an approver sends to let an agent run unlimited (no brand default either). */
export const NO_LIMITS = { rate_limit_rpm: null, rate_limit_rpd: null, monthly_budget_usd: null };

/**
 * An agent that asked by the client administrator's e-mail, describing the agent user it becomes (its limits,
 * budget and name in `profile`), approved by that administrator's link.
 */
export async function approvedAgent(
  api: TestApi,
  admin: string,
  client: { client_id: string; admin_email: string },
  profile: Record<string, unknown> = {},
) {
  const res = await api.call('POST', '/api/v1/auth/pat/request-by-email', {
    body: { email: client.admin_email, project_name: 'lead-finder', requested_scopes: ['jobs:read'], ...profile },
  });
  if (res.status !== 200) throw new Error(`request by e-mail: ${res.status} ${JSON.stringify(res.body)}`);
  return approve(api, admin, client, res.body);
}

async function approve<Receipt extends { request_id: string; poll_url: string }>(
  api: TestApi,
  admin: string,
  client: { client_id: string; admin_email: string },
  receipt: Receipt,
  limits?: Record<string, unknown>,
) {
  const mail = await approvalMail(api, admin, client.admin_email, receipt.request_id);
  const decided = await decideByLink(linkOf(mail, 'approve'), limits);
  if (decided.status !== 200) throw new Error(`approve: ${decided.status} ${await decided.text()}`);
  const polled = await pollUntil(api, receipt, (b) => b.status === 'approved');
  return { receipt, token: polled.access_token as string, polled };
}
