/**
 * An agent's request for access, opened with its workflow: by the client's id (the approval goes to the client's
 * administrator and its brand_admins) or by an administrator's e-mail address (the approval goes to that address
 * only). Each recipient gets links of their own, so a decision says who made it and what they may grant.
 */
import { randomToken, sha256 } from '../lib/crypto';
import type { JsonBody, Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { newId } from '../lib/ids';
import { clientDirectory, type ClientProfile } from '../clients/client-directory';
import { userDirectory } from '../users/user-directory';
import type { AccessRequestInput, Approver } from '../../workflows/access-request-api';
import { AccessRequestModel, type AccessRequestDoc } from './access-request.model';
import { approvalEmail } from './approval-views';
import type { AccessRequestWorkflows } from './agents.workflows';
import { POLL_INTERVAL_SECONDS } from './access-request-poll';

export interface OpenDeps {
  workflows: AccessRequestWorkflows;
  publicBaseUrl: string;
  ttlSeconds: number;
}

type ByClientId = JsonBody<'requestAccessToken'>;
type ByEmail = JsonBody<'requestAccessTokenByEmail'>;

/** What either request says of the access it asks for (only one by the client's id names its owner). */
type AccessAsked = Pick<ByClientId, 'project_name' | 'requested_scopes' | 'ttl_hours' | 'fingerprint' | 'multi_brand'> &
  Partial<Pick<ByClientId, 'owner_email'>>;

/** The limits an agent may ask for in either request (the approver decides them). */
const LIMIT_REQUEST_FIELDS = ['monthly_budget_usd', 'rate_limit_rpm', 'rate_limit_rpd'] as const;
/** What a request by e-mail also says about the agent user it will become. */
const PROFILE_FIELDS = ['name', 'description', 'photo', ...LIMIT_REQUEST_FIELDS, 'allowed_models'] as const;

/** What a request says of the agent user it will become. */
type AgentProfile = Partial<Pick<ByEmail, (typeof PROFILE_FIELDS)[number]>>;

/** The fields of a request's input that describe the agent user it will become (what it gave of them). */
const profileOf = <Input extends object, Field extends keyof Input>(input: Input, fields: readonly Field[]) =>
  Object.fromEntries(fields.filter((f) => input[f] !== undefined).map((f) => [f, input[f]])) as Partial<
    Pick<Input, Field>
  >;

/** An address the approval e-mail goes to, and what its links may decide. */
type Recipient = Approver & { email: string };

/**
 * Who decides (docs/decisions.md §6): the client's admin_email, which may grant any of its brands, and its active
 * brand_admin users, who may grant only brands they administer. An address that is both decides as the client.
 */
async function recipients(clientId: string, adminEmail: string): Promise<Recipient[]> {
  const admins = await userDirectory.activeBrandAdmins(clientId);
  const list: Recipient[] = [{ email: adminEmail.toLowerCase(), role: 'client_admin', user_id: null }];
  for (const admin of admins) {
    const email = admin.email.toLowerCase();
    if (!list.some((r) => r.email === email)) list.push({ email, role: 'brand_admin', user_id: admin.user_id });
  }
  return list;
}

/** The client, if it exists and is active. */
const activeClient = async (clientId: string) => {
  const client = await clientDirectory.profile(clientId);
  return client?.is_active ? client : null;
};

/**
 * Opens the request and its workflow. Each recipient gets links of their own (so a decision says who made it
 * and what they may grant); the requester's own address gets none, so nobody approves their own request.
 */
async function openRequest(
  deps: OpenDeps,
  client: ClientProfile | null,
  to: Recipient[],
  input: AccessAsked,
  profile: AgentProfile,
): Promise<Schemas['AccessRequestReceipt']> {
  const requestId = newId();
  const pollToken = randomToken('apt_', 24);
  const expiresAt = new Date(Date.now() + deps.ttlSeconds * 1000);
  const owner = input.owner_email?.toLowerCase() ?? null;
  const approvers = to.filter((r) => r.email !== owner).map((r) => ({ ...r, token: randomToken('aat_', 24) }));
  const doc = (
    await AccessRequestModel.create({
      _id: requestId,
      client_id: client?.client_id ?? null,
      owner_email: owner,
      project_name: input.project_name,
      requested_scopes: input.requested_scopes,
      ttl_hours: input.ttl_hours ?? 72,
      multi_brand: input.multi_brand ?? false,
      fingerprint: { agent_type: 'unknown', ...input.fingerprint },
      profile,
      expires_at: expiresAt,
      poll_token_hash: sha256(pollToken),
      approvers: approvers.map(({ token, ...r }) => ({ ...r, token_hash: sha256(token) })),
    })
  ).toObject() as AccessRequestDoc;
  const requestUrl = `${deps.publicBaseUrl}/api/v1/auth/pat/request/${requestId}`;
  const link = (verdict: string, token: string) =>
    `${requestUrl}/${verdict}?approval_token=${encodeURIComponent(token)}`;
  const emails = client
    ? approvers.map((a) => ({
        channel: 'email' as const,
        to: a.email,
        ...approvalEmail({
          request: doc,
          clientName: client.name,
          approver: a,
          approveUrl: link('approve', a.token),
          denyUrl: link('deny', a.token),
        }),
      }))
    : [];
  const input_: AccessRequestInput = { request_id: requestId, ttl_ms: deps.ttlSeconds * 1000, emails };
  await deps.workflows.open(input_, doc.client_id ?? null);
  return {
    request_id: requestId,
    status: 'pending',
    poll_token: pollToken,
    poll_url: `/api/v1/auth/pat/request/${requestId}/status?poll_token=${encodeURIComponent(pollToken)}`,
    poll_interval_seconds: POLL_INTERVAL_SECONDS,
    expires_at: expiresAt.toISOString(),
  };
}

/** A request naming its client: its administrator and brand_admins (not the owner) are asked. */
export async function requestAccess(deps: OpenDeps, input: ByClientId): Promise<Schemas['AccessRequestReceipt']> {
  const client = await activeClient(input.client_id);
  if (!client) throw AppError.notFound('No active client with this id');
  const profile = profileOf(input, LIMIT_REQUEST_FIELDS);
  return openRequest(deps, client, await recipients(client.client_id, client.admin_email), input, profile);
}

/**
 * The same answer whether or not the address belongs to a client, so addresses cannot be probed. The
 * approval goes to that address only: the client's administrator or one of its brand_admins, whose links
 * grant what that address may grant. The agent's owner is not named here, so nobody is excluded.
 */
export async function requestAccessByEmail(deps: OpenDeps, input: ByEmail): Promise<Schemas['AccessRequestReceipt']> {
  const email = input.email.toLowerCase();
  let client = await clientDirectory.activeByAdminEmail(email);
  let addressed: Recipient | null = client ? { email, role: 'client_admin', user_id: null } : null;
  if (!client) {
    const admin = await userDirectory.activeBrandAdminByEmail(email);
    client = admin?.client_id ? await activeClient(admin.client_id) : null;
    addressed = client && admin ? { email, role: 'brand_admin', user_id: admin.user_id } : null;
  }
  return openRequest(deps, client, addressed ? [addressed] : [], input, profileOf(input, PROFILE_FIELDS));
}
