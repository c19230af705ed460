import Redis from 'ioredis';

/** Redis Sentinel: the sentinels' addresses and the name of the primary they watch. */
export interface RedisSentinels {
  sentinels: { host: string; port: number }[];
  name: string;
}

/**
 * ioredis with an offline queue switched off: while Redis is down commands reject immediately
 * (the API answers 503) and the client keeps reconnecting in the background, so the service
 * recovers by itself when Redis is back. With `sentinel`, the primary is the one the sentinels name
 * (followed through a failover); `url` then gives only the credentials, database and TLS.
 */
const retry = (attempt: number) => Math.min(attempt * 200, 2000);

export function createRedis(url: string, keyPrefix: string, sentinel?: RedisSentinels): Redis {
  const client = new Redis(url, {
    ...(sentinel ? { sentinels: sentinel.sentinels, name: sentinel.name, sentinelRetryStrategy: retry } : {}),
    keyPrefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: retry,
    lazyConnect: true,
  });
  client.on('error', () => undefined); // reported by /system/health; reconnects on its own
  return client;
}

export async function connectRedis(client: Redis): Promise<void> {
  if (client.status === 'wait') await client.connect().catch(() => undefined);
}

export async function pingRedis(client: Redis): Promise<void> {
  const answer = await client.ping();
  if (answer !== 'PONG') throw new Error(`unexpected PING answer ${answer}`);
}
