import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { keepRenewed } from '../lib/lease';
import { channelName, type Broadcast, type JobEvent } from './event-bus';

type Deliver = (event: JobEvent) => void;
interface Listener {
  clientId: string | null;
  deliver: Deliver;
}

const SUBS = 'events:subs';
const INSTANCES = 'events:instances';
const INSTANCE_TTL_MS = 60_000;

/**
 * The receiving side of job events in one API process: a single dedicated Redis connection
 * subscribed to the broadcast channel (opened with the first stream, closed with the process),
 * fanned out to this process's open streams. Open streams are also counted in Redis per instance,
 * so /events/status reports them across every API instance.
 */
export function createEventHub(redis: Redis) {
  const instanceId = randomUUID();
  const listeners = new Set<Listener>();
  let sub: Redis | null = null;
  let ready: Promise<unknown> | null = null;
  let stopBeating: (() => void) | null = null;

  const field = (clientId: string | null) => `${instanceId}|${clientId ?? '*'}`;
  const alive = () => redis.zadd(INSTANCES, Date.now(), instanceId).catch(() => undefined);

  function dispatch(message: string) {
    let b: Broadcast;
    try {
      b = JSON.parse(message) as Broadcast;
    } catch {
      return;
    }
    const data = JSON.parse(b.data) as JobEvent['data'];
    for (const l of listeners) {
      if (l.clientId === null) l.deliver({ id: b.all_id, event: b.event, data });
      else if (l.clientId === data.client_id) l.deliver({ id: b.id, event: b.event, data });
    }
  }

  function connect(): Promise<unknown> {
    if (!ready) {
      sub = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, lazyConnect: false });
      sub.on('error', () => undefined);
      sub.on('message', (_channel, message) => dispatch(message));
      ready = sub.subscribe(channelName(redis));
      stopBeating = keepRenewed(alive, INSTANCE_TTL_MS);
    }
    return ready;
  }

  return {
    /** Starts delivering this client's events (all clients' for null); resolves once subscribed. */
    async subscribe(clientId: string | null, deliver: Deliver): Promise<() => void> {
      const listener = { clientId, deliver };
      listeners.add(listener);
      await connect();
      await Promise.all([redis.hincrby(SUBS, field(clientId), 1), alive()]).catch(() => undefined);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        listeners.delete(listener);
        void redis.hincrby(SUBS, field(clientId), -1).catch(() => undefined);
      };
    },

    /** This process's open streams. */
    localCount: () => listeners.size,

    /** Open streams of one client (or of all clients) across live API instances. */
    async count(clientId: string | null): Promise<number> {
      const [counts, live] = await Promise.all([
        redis.hgetall(SUBS),
        redis.zrangebyscore(INSTANCES, Date.now() - INSTANCE_TTL_MS, '+inf'),
      ]);
      const liveSet = new Set(live);
      let total = 0;
      for (const [key, value] of Object.entries(counts)) {
        const [instance, client] = key.split('|');
        if (!liveSet.has(instance) || Number(value) <= 0) continue;
        if (clientId === null || client === clientId) total += Number(value);
      }
      return total;
    },

    async close(): Promise<void> {
      stopBeating?.();
      listeners.clear();
      const fields = Object.keys(await redis.hgetall(SUBS).catch(() => ({}))).filter((k) =>
        k.startsWith(`${instanceId}|`),
      );
      if (fields.length) await redis.hdel(SUBS, ...fields).catch(() => undefined);
      await redis.zrem(INSTANCES, instanceId).catch(() => undefined);
      sub?.disconnect();
      sub = null;
      ready = null;
    },
  };
}
