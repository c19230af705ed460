import { AccessTokenModel } from '../../src/agents/access-token.model';
import { sha256 } from '../../src/lib/crypto';
import { newAccessToken } from '../../src/agents/token-format';
import type { CallResult, TestApi } from '../support/harness';

/** A site: a client with a credential triple and one content domain. */
export async function createSite(
  api: TestApi,
  admin: string,
  name: string,
  domain: string,
  extra: Record<string, unknown> = {},
) {
  const res = await api.call('POST', '/api/v1/dashboard/admin/clients', {
    token: admin,
    body: { name, content_domains: [domain], admin_email: `admin@${domain}`, ...extra },
  });
  if (res.status !== 201) throw new Error(`create site failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...res.body, domain, triple: `${res.body.client_id}:${res.body.api_key}:${res.body.api_secret}` as string };
}

export type Site = Awaited<ReturnType<typeof createSite>>;

/** A rich-text document of paragraphs. */
export const doc = (...paragraphs: string[]) => ({
  type: 'doc',
  content: paragraphs.map((text) => ({ type: 'paragraph', content: [{ type: 'text', text }] })),
});

/** An agent access token of the client (test setup: the access-request flow is covered elsewhere). */
export async function agentToken(clientId: string, scopes: string[]): Promise<string> {
  const token = newAccessToken();
  await AccessTokenModel.create({
    client_id: clientId,
    token_hash: sha256(token),
    token_prefix: token.slice(0, 12),
    scopes,
    expires_at: new Date(Date.now() + 3600_000),
  });
  return token;
}

/** Authoring calls as one caller. */
export function author(api: TestApi, token: string, headers: Record<string, string> = {}) {
  const expectStatus = (status: number) => (res: CallResult) => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const post = (path: string, body?: unknown) =>
    api.call('POST', `/api/v1/dashboard/content/${path}`, { token, body, headers });
  return {
    post,
    patch: (path: string, body: unknown) =>
      api.call('PATCH', `/api/v1/dashboard/content/${path}`, { token, body, headers }),
    create: (kind: 'authors' | 'tags' | 'categories' | 'posts' | 'pages', body: unknown) =>
      post(kind, body).then(expectStatus(201)),
    publish: (kind: 'posts' | 'pages', id: string) => post(`${kind}/${id}/publish`).then(expectStatus(200)),
  };
}

/** A public read for a site. */
export const publicGet = (api: TestApi, domain: string | null, path: string, headers: Record<string, string> = {}) =>
  api.call('GET', `/api/v1/content/${path}`, {
    headers: { ...(domain ? { 'x-content-domain': domain } : {}), ...headers },
  });
