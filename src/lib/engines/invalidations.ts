import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';

/**
 * Called with what changed (the `detail` a publisher gave), or with nothing when it may be anything: a publish
 * without detail, or messages that may have been missed (the subscription was lost or re-made).
 */
type Listener = (detail?: string) => void;

export interface Invalidations {
  /**
   * Calls `listener` whenever `topic` is invalidated by any process, and whenever messages may have been
   * missed (the subscription was lost or re-made). `live()` says whether messages are arriving now.
   */
  watch(topic: string, listener: Listener): { live(): boolean };
  /**
   * Tells every process (this one at once, the others through Redis) that `topic` changed, `detail` saying
   * which part of it when the listeners can drop less than everything; resolves once every process subscribed
   * has applied it.
   */
  publish(topic: string, detail?: string): Promise<void>;
}

const buses = new WeakMap<Redis, Invalidations>();

/**
 * One Redis subscription per process and Redis client carrying every in-process cache's invalidations, so a
 * cache can serve hits without a Redis round trip and still never serve what another process took away: each
 * receiver acknowledges an invalidation once applied, and the publisher waits for all of them. A
 * subscriber that is not subscribed (Redis down, reconnecting) is not live, and the caches then skip
 * themselves; every (re)subscription tells the listeners, since messages sent meanwhile are lost. The
 * connection closes with the Redis client it was made from.
 */
export function invalidationsOf(redis: Redis): Invalidations {
  let bus = buses.get(redis);
  if (!bus) buses.set(redis, (bus = createInvalidations(redis)));
  return bus;
}

/** How long a publisher waits for every subscribed process to have applied an invalidation. */
const ACK_TIMEOUT_MS = 2_000;
const ackKey = (id: string) => `invalidate:ack:${id}`;

/** A message is the invalidation's id (a UUID, which holds no space), then its detail if any after one space. */
const message = (id: string, detail?: string) => (detail === undefined ? id : `${id} ${detail}`);
function parseMessage(text: string): { id: string; detail?: string } {
  const space = text.indexOf(' ');
  return space < 0 ? { id: text } : { id: text.slice(0, space), detail: text.slice(space + 1) };
}

function createInvalidations(redis: Redis): Invalidations {
  const prefix = `${redis.options.keyPrefix ?? ''}invalidate:`;

  /** Counts this process among those that have applied invalidation `id`. */
  const acknowledge = (id: string) =>
    redis
      .multi()
      .incr(ackKey(id))
      .pexpire(ackKey(id), 60_000)
      .exec()
      .catch(() => undefined);

  /**
   * Until every process that received invalidation `id` (PUBLISH's count) says it has applied it, so the write
   * that published it is acknowledged only once no process can serve what it took away. A process that
   * stops answering is waited for ACK_TIMEOUT_MS at most.
   */
  async function acknowledged(id: string, receivers: number): Promise<void> {
    const deadline = Date.now() + ACK_TIMEOUT_MS;
    for (let wait = 1; Date.now() < deadline; wait = Math.min(wait * 2, 50)) {
      if (Number(await redis.get(ackKey(id))) >= receivers) return;
      await sleep(wait);
    }
  }

  const listeners = new Map<string, Set<Listener>>();
  let sub: Redis | null = null;
  let subscribed = false;
  const notifyAll = () => listeners.forEach((set) => set.forEach((l) => l()));

  function start() {
    if (sub || redis.status === 'end') return;
    const connection = redis.duplicate({ autoResubscribe: false, enableOfflineQueue: false, lazyConnect: false });
    sub = connection;
    connection.on('error', () => undefined);
    connection.on('message', (channel: string, text: string) => {
      const { id, detail } = parseMessage(text);
      listeners.get(channel.slice(prefix.length))?.forEach((l) => l(detail));
      if (id) void acknowledge(id);
    });
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
    async publish(topic, detail) {
      listeners.get(topic)?.forEach((l) => l(detail));
      const id = randomUUID();
      const receivers = await redis.publish(prefix + topic, message(id, detail));
      await acknowledged(id, receivers);
    },
  };
}
