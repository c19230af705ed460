import type Redis from 'ioredis';

type Listener = () => void;

export interface Invalidations {
  /**
   * Calls `listener` whenever `topic` is invalidated by any process, and whenever messages may have been
   * missed (the subscription was lost or re-made). `live()` says whether messages are arriving now.
   */
  watch(topic: string, listener: Listener): { live(): boolean };
  /** Tells every process (this one at once, the others through Redis) that `topic` changed. */
  publish(topic: string): Promise<void>;
}

const buses = new WeakMap<Redis, Invalidations>();

/**
 * One Redis subscription per process and Redis client carrying every in-process cache's invalidations, so a
 * cache can serve hits without a Redis round trip and still never serve what another process took away. A
 * subscriber that is not subscribed (Redis down, reconnecting) is not live, and the caches then skip
 * themselves; every (re)subscription tells the listeners, since messages sent meanwhile are lost. The
 * connection closes with the Redis client it was made from.
 */
export function invalidationsOf(redis: Redis): Invalidations {
  let bus = buses.get(redis);
  if (!bus) buses.set(redis, (bus = createInvalidations(redis)));
  return bus;
}

function createInvalidations(redis: Redis): Invalidations {
  const prefix = `${redis.options.keyPrefix ?? ''}invalidate:`;
  const listeners = new Map<string, Set<Listener>>();
  let sub: Redis | null = null;
  let subscribed = false;
  const notifyAll = () => listeners.forEach((set) => set.forEach((l) => l()));

  function start() {
    if (sub || redis.status === 'end') return;
    const connection = redis.duplicate({ autoResubscribe: false, enableOfflineQueue: false, lazyConnect: false });
    sub = connection;
    connection.on('error', () => undefined);
    connection.on('message', (channel: string) => listeners.get(channel.slice(prefix.length))?.forEach((l) => l()));
    connection.on('ready', () => {
      void connection.subscribe(...[...listeners.keys()].map((t) => prefix + t)).then(
        () => {
          subscribed = true;
          notifyAll();
        },
        () => connection.disconnect(true),
      );
    });
    connection.on('close', () => {
      if (subscribed) notifyAll();
      subscribed = false;
    });
    redis.once('end', () => {
      subscribed = false;
      connection.disconnect();
    });
  }

  return {
    watch(topic, listener) {
      let set = listeners.get(topic);
      if (!set) {
        listeners.set(topic, (set = new Set()));
        // A topic added after the subscription was made: not live until this subscription is in place too.
        if (sub?.status === 'ready') {
          subscribed = false;
          void sub.subscribe(prefix + topic).then(
            () => (subscribed = true),
            () => sub?.disconnect(true),
          );
        }
      }
      set.add(listener);
      start();
      return { live: () => subscribed };
    },
    async publish(topic) {
      listeners.get(topic)?.forEach((l) => l());
      await redis.publish(prefix + topic, '');
    },
  };
}
