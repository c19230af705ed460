import { systemClock, type Clock } from '../../lib/clock';
import type { KeyRing } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { hasDotSegment } from '../../lib/http/wildcard-paths';
import type { Logger } from '../../lib/logger';
import { relayCalls, relaySpend } from '../../lib/metrics';
import type { BrandAccess } from '../../brands/brand-access';
import type { AgentSpend } from '../../agents/agent-spend';
import type { AgentUserLimits } from '../../lib/tenancy';
import { IntegrationModel, type IntegrationDoc } from '../integration.model';
import { brandKeyIn, poolKeysIn, unseal, type KeyCache } from '../key-store';
import type { Limits, LimitVerdict } from '../limits';
import { PROVIDERS, type Credentials, type ProviderName } from '../providers';
import type { NotifySpendReached } from '../spend';
import type { RecordRelayCall } from '../usage';
import type { RelayEndpoints } from './endpoints';
import { callProvider, providerUnavailable, ProviderUnreachable, type ProviderCall } from './forward';

const LIMIT_DETAIL = {
  minute_limit: 'Minute limit of this key reached',
  daily_limit: 'Daily limit of this key reached',
  spend_limit: 'Spend limit of this key reached',
};
const LAST_USED_EVERY_MS = 60_000;

export interface RelayDeps {
  /** When a call is made: the windows, spend and usage it counts in (src/lib/clock.ts). */
  clock?: Clock;
  ring: KeyRing;
  keys: KeyCache;
  limits: Limits;
  endpoints: RelayEndpoints;
  notifySpend: NotifySpendReached;
  recordCall: RecordRelayCall;
  /** What agents spend through the relays, against their monthly budgets. */
  agentSpend: AgentSpend;
  logger: Logger;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * A `.` or `..` segment (percent-encoded or not) is refused as invalid input (422) before the allowlist is
 * consulted, so no later change of a route pattern can let one through. Then the allowlist: the whole path must
 * match one of the provider's routes, with a method that route allows.
 */
export function checkAllowed(provider: ProviderName, call: ProviderCall): void {
  if (hasDotSegment(call.path)) {
    const message = 'must not have a `.` or `..` segment (percent-encoded or not)';
    // The maps relay takes its provider path in the URL; the other relays in the body.
    const location = provider === 'maps' ? 'path' : 'body';
    throw AppError.invalid(`Invalid path: it ${message}`, [{ location, field: 'path', message }]);
  }
  const route = PROVIDERS[provider].routes.find((r) => r.pattern.test(call.path));
  if (!route) throw AppError.badRequest('Path not on the allowlist');
  if (!route.methods.includes(call.method))
    throw AppError.badRequest(`Method ${call.method} not allowed for this path`);
}

/**
 * The three relays: pick the key (the brand's primary active key, else a key another brand of the
 * client shares with the pool), take the call's price from the calling agent's monthly budget, decrypt
 * the key, take the call from its limits (atomically, in Redis), forward with the key injected, record
 * usage and spend (the key's and the agent's), and map the provider's answer. A call that is not sent,
 * or that the provider never answers, gives its price back to both.
 */
export function createRelay(deps: RelayDeps) {
  const lastUsedWritten = new Map<number, number>();

  function touch(key: IntegrationDoc, at: Date) {
    if ((lastUsedWritten.get(key._id) ?? 0) > at.getTime() - LAST_USED_EVERY_MS) return;
    lastUsedWritten.set(key._id, at.getTime());
    IntegrationModel.updateOne({ _id: key._id, client_id: key.client_id }, { $set: { last_used_at: at } }).catch(
      (err) => deps.logger.warn({ err: (err as Error).message, integration_id: key._id }, 'last_used_at not written'),
    );
  }

  /** The first candidate key whose limits take the call; a refusal by every one is the first refusal (429). */
  async function takeFrom(
    candidates: IntegrationDoc[],
    price: number,
    at: Date,
  ): Promise<{ key: IntegrationDoc; verdict: LimitVerdict & { ok: true } }> {
    let refused: (LimitVerdict & { ok: false }) | undefined;
    for (const key of candidates) {
      const verdict = await deps.limits.take(key, price, at);
      if (verdict.ok) return { key, verdict };
      refused ??= verdict;
    }
    relayCalls.inc({ provider: candidates[0].provider_name, outcome: 'limited' });
    throw AppError.tooManyRequests(LIMIT_DETAIL[refused!.reason], refused!.retryAfterSeconds);
  }

  return {
    async relay(
      access: BrandAccess,
      provider: ProviderName,
      call: ProviderCall,
      country: string | null,
      /** The agent user making the call (null: a dashboard caller or a triple, which has no budget). */
      agent: AgentUserLimits | null = null,
    ): Promise<Record<string, unknown>> {
      checkAllowed(provider, call);
      const q = { client_id: access.brand.client_id, brand_id: access.brand._id, provider, country_code: country };
      const keys = await deps.keys.activeKeys(q.client_id, provider);
      const own = brandKeyIn(keys, q);
      const candidates = [...(own ? [own] : []), ...poolKeysIn(keys, q)];
      if (!candidates.length) throw new AppError(412, `No active ${provider} credential for this brand`);
      const baseUrl = await deps.endpoints.baseUrl(provider);
      if (!baseUrl) throw providerUnavailable();
      const template = PROVIDERS[provider];
      const at = (deps.clock ?? systemClock).date();
      const price = template.price_per_call;
      if (agent) await deps.agentSpend.reserve(agent, price, at);
      const refundAgent = () => (agent ? deps.agentSpend.refund(agent.agentUserId, price, at) : undefined);
      let taken;
      try {
        taken = await takeFrom(candidates, price, at);
      } catch (err) {
        await refundAgent();
        throw err;
      }
      const { key, verdict } = taken;
      let credentials: Credentials;
      try {
        credentials = unseal(deps.ring, key);
      } catch {
        await deps.limits.refund(key._id, price, at, { calls: true }); // nothing was sent
        await refundAgent();
        deps.logger.error(
          { integration_id: key._id },
          'stored credentials cannot be decrypted (CREDENTIALS_KEY or CREDENTIALS_KEY_PREVIOUS)',
        );
        throw providerUnavailable();
      }
      let answer;
      try {
        answer = await callProvider(baseUrl, provider, credentials, call, {
          timeoutMs: deps.timeoutMs,
          maxBytes: deps.maxBytes,
          dispatcher: deps.endpoints.dispatcher(provider),
        });
      } catch (err) {
        if (!(err instanceof ProviderUnreachable)) throw err;
        relayCalls.inc({ provider, outcome: 'unreachable' });
        await deps.limits.refund(key._id, price, at);
        await refundAgent();
        deps.logger.warn({ integration_id: key._id, provider, why: err.message }, 'relay provider unreachable');
        throw providerUnavailable();
      }
      relayCalls.inc({ provider, outcome: `${Math.floor(answer.status / 100)}xx` });
      relaySpend.inc({ provider }, price);
      await deps.recordCall({
        client_id: key.client_id,
        brand_id: key.brand_id,
        acting_brand_id: access.brand._id,
        integration_id: key._id,
        provider_name: provider,
        agent_user_id: agent?.agentUserId ?? null,
        amount: price,
        provider_status: answer.status,
        at,
      });
      touch(key, at);
      await deps.notifySpend(key, verdict.spentMicros, at);
      if (answer.status >= 200 && answer.status < 300) {
        if (answer.body === null || typeof answer.body !== 'object' || Array.isArray(answer.body))
          throw new AppError(502, 'Provider answer is not a JSON object');
        return answer.body as Record<string, unknown>;
      }
      throw AppError.badRequest('Provider refused the request', {
        provider_status: answer.status,
        provider_body: answer.body ?? null,
      });
    },
  };
}

export type Relay = ReturnType<typeof createRelay>;
