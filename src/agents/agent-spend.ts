import type Redis from 'ioredis';
import type { Schemas } from '../lib/contract-types';
import { systemClock, type Clock } from '../lib/clock';
import { AppError } from '../lib/errors';
import { iso } from '../lib/ids';
import type { AgentUserLimits } from '../lib/tenancy';
import { dayOf, fromMicros, periodBounds, secondsUntil, toMicros } from '../integrations/periods';

const DAY_MS = 86_400_000;

/** The budget period: the UTC calendar month. */
const monthOf = (at: Date) => periodBounds('monthly', at);
const spendKey = (agentUserId: string, at: Date) => `agent-user:${agentUserId}:spend:${dayOf(monthOf(at).start)}`;

/**
 * Reserves a call's price against the budget, atomically: refused when the month's spend plus the price would pass
 * it. KEYS: the month's spend (millionths of a USD). ARGV: price, budget (-1: none), lifetime in ms.
 * Returns {verdict (0 ok, 1 refused), the month's spend after it}.
 */
const RESERVE = `
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local price = tonumber(ARGV[1])
local budget = tonumber(ARGV[2])
if budget >= 0 and spent + price > budget then return {1, spent} end
spent = redis.call('INCRBY', KEYS[1], price)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {0, spent}`;

/** An agent user's spend this month, as the contract's AgentSpend shows it. */
export type AgentSpendView = Schemas['AgentSpend'];

/**
 * What an agent user spends through the relays, per UTC month, counted in Redis where every API process sees it
 * at once (the durable record of each call, with its agent user, is the relay usage): the month's relay prices,
 * less those of calls the provider never answered. monthly_budget_usd is applied to it before a call is sent.
 */
export function createAgentSpend(redis: Redis, clock: Clock = systemClock) {
  return {
    /** Takes the call's price from the agent user's budget, or refuses it (402, code budget_exceeded). */
    async reserve(user: AgentUserLimits, price: number, at = clock.date()): Promise<void> {
      const { end } = monthOf(at);
      const budget = user.monthlyBudgetUsd;
      const lifetime = end.getTime() - at.getTime() + 7 * DAY_MS; // the month is shown a week after it ends
      const [verdict, spent] = (await redis.eval(
        RESERVE,
        1,
        spendKey(user.agentUserId, at),
        String(toMicros(price)),
        String(budget === null ? -1 : toMicros(budget)),
        String(lifetime),
      )) as number[];
      if (verdict === 0) return;
      const retryAfter = secondsUntil(end.getTime(), at.getTime());
      throw new AppError(
        402,
        `Monthly budget of this agent reached: spent USD ${fromMicros(spent).toFixed(4)} of its monthly_budget_usd ` +
          `${budget!.toFixed(2)} this month; this call costs USD ${price.toFixed(4)}. The budget starts again on ` +
          `${dayOf(end)} (UTC).`,
        { code: 'budget_exceeded' },
        { 'Retry-After': String(retryAfter) },
      );
    },

    /** Gives back the price of a call that was not sent or not answered (it is not spend). */
    async refund(agentUserId: string, price: number, at: Date): Promise<void> {
      await redis.decrby(spendKey(agentUserId, at), toMicros(price));
    },

    /** Each agent user's spend this month, against its budget. */
    async views(users: { agentUserId: string; monthlyBudgetUsd: number | null }[], at = clock.date()) {
      const out = new Map<string, AgentSpendView>();
      if (!users.length) return out;
      const { start, end } = monthOf(at);
      const values = await redis.mget(...users.map((u) => spendKey(u.agentUserId, at)));
      users.forEach((u, i) => {
        const amount = Math.max(0, fromMicros(Number(values[i] ?? 0)));
        const budget = u.monthlyBudgetUsd;
        out.set(u.agentUserId, {
          period: 'monthly',
          period_start: iso(start)!,
          period_end: iso(end)!,
          amount_usd: amount,
          budget_usd: budget,
          remaining_usd: budget === null ? null : Math.max(0, Math.round((budget - amount) * 1e6) / 1e6),
        });
      });
      return out;
    },
  };
}

export type AgentSpend = ReturnType<typeof createAgentSpend>;
