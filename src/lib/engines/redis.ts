import Redis from 'ioredis';

/**
 * ioredis with an offline queue switched off: while Redis is down commands reject immediately
 * (the API answers 503) and the client keeps reconnecting in the background, so the service
 * recovers by itself when Redis is back.
 */
export function createRedis(url: string, keyPrefix: string): Redis {
  const client = new Redis(url, {
    keyPrefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
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
