import type { Engines } from '../lib/engines';
import { pingMongo } from '../lib/engines/mongo';
import { pingRedis } from '../lib/engines/redis';
import { pingTemporal } from '../lib/engines/temporal';

export interface Check {
  status: 'up' | 'down';
  latency_ms: number;
  error?: string;
}

const CHECK_TIMEOUT_MS = 2000;

async function check(probe: () => Promise<void>): Promise<Check> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS)),
      ),
    ]);
    return { status: 'up', latency_ms: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      status: 'down',
      latency_ms: Math.round(performance.now() - started),
      error: (err as Error).message.split('\n')[0].slice(0, 200),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Asks each engine for real (ping, PING, describeNamespace), side by side. */
export async function checkHealth(engines: Engines, version: string) {
  const [mongodb, redis, temporal] = await Promise.all([
    check(pingMongo),
    check(() => pingRedis(engines.redis)),
    check(() => pingTemporal(engines.temporal)),
  ]);
  const checks = { api: { status: 'up' as const, latency_ms: 0 }, mongodb, redis, temporal };
  const down = Object.entries(checks)
    .filter(([, c]) => c.status === 'down')
    .map(([name]) => name);
  return {
    status: down.length ? ('degraded' as const) : ('ok' as const),
    version,
    checked_at: new Date().toISOString(),
    ...(down.length ? { detail: `unavailable: ${down.join(', ')}` } : {}),
    checks,
  };
}

export type Health = Awaited<ReturnType<typeof checkHealth>>;

/** The same report without the engines' own error messages (they name hosts and ports): states and latencies. */
export function withoutErrors(health: Health): Health {
  const checks = Object.fromEntries(
    Object.entries(health.checks).map(([name, { status, latency_ms }]) => [name, { status, latency_ms }]),
  ) as Health['checks'];
  return { ...health, checks };
}
