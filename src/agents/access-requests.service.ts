import type Redis from 'ioredis';
import { randomToken, safeEqual, sha256, SecretBox } from '../lib/crypto';
import type { Schemas } from '../lib/contract-types';
import { AppError } from '../lib/errors';
import { iso, newId } from '../lib/ids';
import { claimOnce } from '../lib/claims';
import type { Clock } from '../lib/clock';
import { fixedWindowLimit, minimumSpacing } from '../lib/rate-limit';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import type { Caller } from '../lib/tenancy';
import { clientDirectory, type ClientProfile } from '../clients/client-directory';
import { brandDirectory } from '../brands/brand-directory';
import { userDirectory } from '../users/user-directory';
import type {
  AccessRequestInput,
  AgentLimitValues,
  Approver,
  LimitChanges,
  Verdict,
} from '../../workflows/access-request-api';
import { AccessRequestModel, type AccessRequestDoc } from './access-request.model';
import { brandsToGrant, CLIENT_ADMIN, type BrandGrant } from './access-decisions';
import { approvalEmail, scopeInWords } from './approval-views';
import { limitValuesOf, offeredLimits } from './agent-limits';
import type { AccessRequestWorkflows } from './agents.workflows';
import type { AccessScope } from './tokens.service';

/** The interface's "polled every 3 seconds while waiting": the interval a status poll names and keeps to. */
export const POLL_INTERVAL_SECONDS = 3;

export interface AccessRequestsDeps {
  /** Which window the limits count in (src/lib/clock.ts); the system clock unless a test moves it. */
  clock?: Clock;
  workflows: AccessRequestWorkflows;
  redis: Redis;
  credentialsKey: string;
  publicBaseUrl: string;
  ttlSeconds: number;
  ratePerHour: number;
}

export interface RequestInput {
  owner_email?: string;
  project_name: string;
  requested_scopes: string[];
  ttl_hours?: number;
  fingerprint?: Record<string, unknown>;
  multi_brand?: boolean;
  rate_limit_rpm?: number;
  rate_limit_rpd?: number;
  monthly_budget_usd?: number;
}

/** An address the approval e-mail goes to, and what its links may decide. */
type Recipient = Approver & { email: string };

/** The limits an agent may ask for in either request (the approver decides them). */
const LIMIT_REQUEST_FIELDS = ['monthly_budget_usd', 'rate_limit_rpm', 'rate_limit_rpd'] as const;
/** What a request by e-mail also says about the agent user it will become. */
const PROFILE_FIELDS = ['name', 'description', 'photo', ...LIMIT_REQUEST_FIELDS, 'allowed_models'] as const;

/** The fields of a request's input that describe the agent user it will become (what it gave of them). */
const profileOf = (input: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(fields.filter((f) => input[f] !== undefined).map((f) => [f, input[f]]));

/**
 * Whom a signed-in user decides as (docs/decisions.md §6): a brand_admin as the brand_admin the approval e-mail
 * goes to (only brands they administer, never a multi_brand request); a super_admin as the client's administrator.
 * Their e-mail address is recorded as the decider, as a link's recipient's is.
 */
function approverFor(caller: Caller): Approver {
  const email = caller.email?.toLowerCase() ?? null;
  if (caller.kind === 'user' && caller.role === 'brand_admin' && caller.userId)
    return { email, role: 'brand_admin', user_id: caller.userId };
  if (caller.kind === 'user' && caller.role === 'super_admin')
    return { email, role: 'client_admin', user_id: caller.userId ?? null };
  throw AppError.forbidden('Only a super_admin or a brand_admin decides access requests');
}

export function createAccessRequests(deps: AccessRequestsDeps) {
  const box = new SecretBox(deps.credentialsKey);

  /** At most ratePerHour requests from one caller's address (clientAddress) an hour (0: no limit): each sends mail. */
  const requestsPerAddress = fixedWindowLimit(
    deps.redis,
    'access-requests:address',
    {
      max: deps.ratePerHour,
      seconds: 3600,
    },
    deps.clock,
  );
  /** RFC 8628's slow_down: a poll within the interval of the last one answered is refused, with the interval. */
  const pollSpacing = minimumSpacing(deps.redis, 'access-request-poll', POLL_INTERVAL_SECONDS);

  async function limitRate(address: string) {
    if (deps.ratePerHour)
      await requestsPerAddress.take(address, `At most ${deps.ratePerHour} access requests per hour from one address`);
  }

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

  /**
   * Opens the request and its workflow. Each recipient gets links of their own (so a decision says who made it
   * and what they may grant); the requester's own address gets none, so nobody approves their own request.
   */
  /** The client, if it exists and is active. */
  const activeClient = async (clientId: string) => {
    const client = await clientDirectory.profile(clientId);
    return client?.is_active ? client : null;
  };

  async function open(
    client: ClientProfile | null,
    to: Recipient[],
    input: RequestInput,
    profile: Record<string, unknown>,
  ) {
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
      status: 'pending' as const,
      poll_token: pollToken,
      poll_url: `/api/v1/auth/pat/request/${requestId}/status?poll_token=${encodeURIComponent(pollToken)}`,
      poll_interval_seconds: POLL_INTERVAL_SECONDS,
      expires_at: expiresAt.toISOString(),
    };
  }

  /** The approver whose link carries this token (compared in constant time), or 401. */
  async function approverOf(
    requestId: string,
    approvalToken: string,
  ): Promise<{ doc: AccessRequestDoc; approver: Approver }> {
    const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
    if (!doc) throw AppError.notFound('Access request not found');
    const hash = sha256(approvalToken);
    const matches = (doc.approvers ?? []).filter((a) => safeEqual(a.token_hash, hash));
    if (matches.length)
      return {
        doc,
        approver: {
          email: matches[0].email,
          role: matches[0].role as Approver['role'],
          user_id: matches[0].user_id ?? null,
        },
      };
    if (doc.approval_token_hash && safeEqual(doc.approval_token_hash, hash)) return { doc, approver: CLIENT_ADMIN };
    throw AppError.unauthorized('Wrong approval_token');
  }

  /** What this approver's decision would do, or why they may not make it. */
  async function authorityOf(doc: AccessRequestDoc, approver: Approver, verdict: Verdict): Promise<BrandGrant> {
    if (approver.email && approver.email === doc.owner_email?.toLowerCase()) {
      return { refused: 'You asked for this access yourself; another administrator of the client must decide' };
    }
    return verdict === 'denied' ? { brand_ids: [] } : brandsToGrant(doc, approver);
  }

  async function withPollToken(requestId: string, pollToken: string) {
    const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
    if (!doc) throw AppError.notFound('Access request not found');
    if (!safeEqual(doc.poll_token_hash, sha256(pollToken))) throw AppError.unauthorized('Wrong poll_token');
    return doc;
  }

  /** A pending request past its deadline reads as expired even before the workflow has marked it. */
  const stateOf = (doc: AccessRequestDoc) =>
    doc.status === 'pending' && doc.expires_at <= new Date() ? 'expired' : doc.status;

  /** What this approver's decision would do, as the approve and deny links' pages show it. */
  async function factsFor(
    doc: AccessRequestDoc,
    approver: Approver,
    verdict: Verdict,
  ): Promise<Schemas['AccessDecisionPreview']> {
    const state = stateOf(doc);
    // Both decisions, so that the page offers either one this approver may make, whichever link they followed.
    const [approve, deny]: BrandGrant[] =
      state === 'pending'
        ? await Promise.all([authorityOf(doc, approver, 'approved'), authorityOf(doc, approver, 'denied')])
        : [{ refused: stateReason(state) }, { refused: stateReason(state) }];
    const authority = verdict === 'approved' ? approve : deny;
    const decision = (grant: BrandGrant) => ({
      can_decide: !('refused' in grant),
      reason: 'refused' in grant ? grant.refused : null,
    });
    const clientId = doc.client_id ?? '';
    const granted = 'brand_ids' in approve ? approve.brand_ids : [];
    const [client, brands, limits] = await Promise.all([
      clientDirectory.profile(clientId),
      brandDirectory.names(clientId, granted),
      offeredLimits(doc, granted),
    ]);
    return {
      request_id: doc._id,
      status: state,
      verdict,
      project_name: doc.project_name,
      owner_email: doc.owner_email ?? null,
      requested_scopes: doc.requested_scopes,
      ttl_hours: doc.ttl_hours,
      multi_brand: doc.multi_brand,
      expires_at: iso(doc.expires_at)!,
      approver_email: approver.email,
      brand_ids: 'brand_ids' in authority ? authority.brand_ids : [],
      ...decision(authority),
      client_name: client?.name ?? null,
      brands,
      fingerprint: (doc.fingerprint ?? {}) as Record<string, unknown>,
      decisions: { approved: decision(approve), denied: decision(deny) },
      limits,
    };
  }

  /** A request as a signed-in approver reviews it: the facts of its approve link's page, for them. */
  async function reviewFor(doc: AccessRequestDoc, approver: Approver): Promise<Schemas['AccessRequestReview']> {
    const facts = await factsFor(doc, approver, 'approved');
    return {
      request_id: facts.request_id,
      client_id: doc.client_id!,
      client_name: facts.client_name,
      status: facts.status,
      project_name: facts.project_name,
      owner_email: facts.owner_email,
      requested_scopes: facts.requested_scopes,
      scopes_in_words: facts.requested_scopes.map((scope) => ({ scope, words: scopeInWords(scope) })),
      ttl_hours: facts.ttl_hours,
      multi_brand: facts.multi_brand,
      fingerprint: facts.fingerprint,
      created_at: iso(doc.created_at)!,
      expires_at: facts.expires_at,
      decided_at: iso(doc.decided_at),
      decided_by: doc.decided_by ?? null,
      brand_ids: facts.brand_ids,
      brands: facts.brands,
      decisions: facts.decisions,
      limits: facts.limits,
      approved_limits: doc.status === 'approved' && doc.limits ? limitValuesOf(doc.limits as AgentLimitValues) : null,
    };
  }

  /**
   * Delivers a decision to the request's workflow, whoever makes it (a link's approver or a signed-in one): the
   * first wins, a later one is 409, one past the deadline 410.
   */
  async function decideFor(doc: AccessRequestDoc, approver: Approver, verdict: Verdict, limits?: LimitChanges) {
    const requestId = doc._id;
    const state = stateOf(doc);
    if (state === 'expired') throw new AppError(410, 'Access request has expired');
    if (state !== 'pending') throw AppError.conflict(`Access request already ${state}`);
    const authority = await authorityOf(doc, approver, verdict);
    if ('refused' in authority) throw AppError.forbidden(authority.refused);
    const changes = verdict === 'approved' ? limits : undefined;
    const decision = await deps.workflows.decide(requestId, verdict, approver, changes, async () => {
      // The run ended before this decision reached it: the state it left says why.
      const now = stateOf((await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>())!);
      if (now === 'expired') return new AppError(410, 'Access request has expired');
      return now === 'pending' ? null : AppError.conflict(`Access request already ${now}`);
    });
    return {
      decision,
      scopes: doc.requested_scopes,
      brands: await brandDirectory.names(doc.client_id ?? '', decision.brand_ids),
    };
  }

  return {
    async request(input: RequestInput & { client_id: string }, address: string) {
      await limitRate(address);
      const client = await activeClient(input.client_id);
      if (!client) throw AppError.notFound('No active client with this id');
      const profile = profileOf(input as unknown as Record<string, unknown>, LIMIT_REQUEST_FIELDS);
      return open(client, await recipients(client.client_id, client.admin_email), input, profile);
    },

    /**
     * The same answer whether or not the address belongs to a client, so addresses cannot be probed. The
     * approval goes to that address only: the client's administrator or one of its brand_admins, whose links
     * grant what that address may grant. The agent's owner is not named here, so nobody is excluded.
     */
    async requestByEmail(input: RequestInput & { email: string } & Record<string, unknown>, address: string) {
      await limitRate(address);
      const email = input.email.toLowerCase();
      let client = await clientDirectory.activeByAdminEmail(email);
      let addressed: Recipient | null = client ? { email, role: 'client_admin', user_id: null } : null;
      if (!client) {
        const admin = await userDirectory.activeBrandAdminByEmail(email);
        client = admin?.client_id ? await activeClient(admin.client_id) : null;
        addressed = client && admin ? { email, role: 'brand_admin', user_id: admin.user_id } : null;
      }
      return open(client, addressed ? [addressed] : [], input, profileOf(input, PROFILE_FIELDS));
    },

    async status(requestId: string, pollToken: string): Promise<Schemas['AccessRequest']> {
      const doc = await withPollToken(requestId, pollToken);
      // Redis unavailable: the poll is answered (the token's pickup is a one-time claim either way).
      if (!(await pollSpacing.allows(requestId).catch(() => true)))
        throw new AppError(429, 'slow_down', { interval: POLL_INTERVAL_SECONDS });
      let accessToken: string | null = null;
      if (doc.status === 'approved' && doc.token_sealed && (await claimOnce(`access-token-pickup:${requestId}`))) {
        accessToken = box.decrypt(doc.token_sealed);
        await AccessRequestModel.updateOne({ _id: requestId }, { token_sealed: null });
      }
      return {
        request_id: doc._id,
        status: stateOf(doc),
        project_name: doc.project_name,
        requested_scopes: doc.requested_scopes as AccessScope[],
        ttl_hours: doc.ttl_hours,
        multi_brand: doc.multi_brand,
        created_at: iso(doc.created_at),
        expires_at: iso(doc.expires_at),
        decided_at: iso(doc.decided_at),
        poll_interval_seconds: POLL_INTERVAL_SECONDS,
        access_token: accessToken,
        token_id: doc.token_id ?? null,
        token_expires_at: iso(doc.token_expires_at),
        brand_ids: doc.brand_ids,
      };
    },

    /**
     * What following a link would decide, without deciding (a GET: mail scanners and link previews fetch
     * links, so a GET never decides).
     */
    async preview(
      requestId: string,
      approvalToken: string,
      verdict: Verdict,
    ): Promise<Schemas['AccessDecisionPreview']> {
      const { doc, approver } = await approverOf(requestId, approvalToken);
      return factsFor(doc, approver, verdict);
    },

    /**
     * The requests a signed-in approver could decide (their client's; a super_admin's in `scope`, or every
     * client's), newest first, each with the facts its approve link's page shows, for this approver.
     */
    async listFor(
      caller: Caller,
      scope: string | null,
      status: 'pending' | 'approved' | 'denied' | 'expired',
      page: Page,
    ) {
      const approver = approverFor(caller);
      const now = new Date();
      const byState = {
        pending: { status: 'pending', expires_at: { $gt: now } },
        expired: { $or: [{ status: 'expired' }, { status: 'pending', expires_at: { $lte: now } }] },
        approved: { status: 'approved' },
        denied: { status: 'denied' },
      }[status];
      const filter = { client_id: scope ?? { $ne: null }, ...byState };
      const { docs, total } = await findPage<AccessRequestDoc>(
        AccessRequestModel,
        { filter, sort: { created_at: -1, _id: 1 }, projection: { token_sealed: 0 } },
        page,
      );
      const requests = await Promise.all(docs.map((doc) => reviewFor(doc, approver)));
      return pageEnvelope('requests', requests, total, page);
    },

    /**
     * A signed-in approver's decision (the console): the same checks and the same workflow Update as a link's,
     * as the approver their e-mail would name. Another client's request, or one outside `scope`, is 404.
     */
    async decideAs(caller: Caller, scope: string | null, requestId: string, verdict: Verdict, limits?: LimitChanges) {
      const doc = await AccessRequestModel.findById(requestId).lean<AccessRequestDoc>();
      if (!doc || !doc.client_id || (scope && doc.client_id !== scope))
        throw AppError.notFound('Access request not found');
      return decideFor(doc, approverFor(caller), verdict, limits);
    },
    /**
     * Delivers the decision to the workflow (a POST), with an approver's changes to the limits offered (checked
     * by the caller), and reports the decision it actually took.
     */
    async decide(requestId: string, approvalToken: string, verdict: Verdict, limits?: LimitChanges) {
      const { doc, approver } = await approverOf(requestId, approvalToken);
      return decideFor(doc, approver, verdict, limits);
    },
  };
}

const stateReason = (state: string) =>
  state === 'expired' ? 'Access request has expired' : `Access request already ${state}`;

export type AccessRequests = ReturnType<typeof createAccessRequests>;
