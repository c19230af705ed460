import { createActivityRecorder, type ActivityRecorder } from './activity/recorder';
import { createTokenCache, type TokenCache } from './auth/token-cache';
import { createBrandCache, type BrandCache } from './brands/brand-cache';
import { createWebhookSecrets, type WebhookSecrets } from './clients/webhook-secrets';
import { eventBusFor, type EventBus } from './events/event-bus';
import type { RelayEndpoints } from './integrations/relay/endpoints';
import { systemClock, type Clock } from './lib/clock';
import { previousCredentialsKeys, type Config } from './lib/config';
import { KeyRing } from './lib/crypto';
import type { Engines } from './lib/engines';
import { createLocks, type RunLocked } from './lib/locks';
import type { Logger } from './lib/logger';
import type { Caller } from './lib/tenancy';
import { outboundPolicy, type OutboundPolicy } from './lib/outbound';
import { createMediaService, type MediaService } from './media/media.service';
import { createMediaStorage, type MediaStorage } from './media/storage';
import { createChannels, outboxOnlyWarnings, type Channels } from './notifications/channels';
import { createNotifier, type Notifier } from './notifications/notifier';
import { version } from '../package.json';

/**
 * The pieces every area shares, built once per process from its configuration and engines, for the API and
 * the worker alike: an area's module takes from here only what it uses.
 */
export interface Infra {
  config: Config;
  engines: Engines;
  logger: Logger;
  version: string;
  /** Where the areas read the time where it decides something (limits and windows, leases, settle times). */
  clock: Clock;
  /** The base of the links the service sends (e-mail, SMS) and of the URLs it names (logos, spend pages). */
  publicBaseUrl: string;
  temporalUiUrl: string | null;
  /** Seals the secrets the service must use again (integration credentials, webhook and callback secrets). */
  ring: KeyRing;
  credentialsKey: string;
  /** Read-modify-write sections that take turns across processes. */
  lock: RunLocked;
  /**
   * Resolved credentials of every kind (sessions, access tokens, triples), cached per process: any write that
   * takes access away invalidates them all, on every process.
   */
  credentials: TokenCache<Caller>;
  notifier: Notifier;
  channels: Channels;
  storage: MediaStorage;
  media: MediaService;
  recorder: ActivityRecorder;
  events: EventBus;
  /** Brands by id, cached per process (every brand-scoped operation looks one up). */
  brands: BrandCache;
  outbound: OutboundPolicy;
  webhooks: WebhookSecrets;
  relayEndpoints: RelayEndpoints;
}

export interface InfraSources {
  config: Config;
  engines: Engines;
  logger: Logger;
  credentialsKey: string;
  publicBaseUrl: string;
  temporalUiUrl: string | null;
  relayEndpoints: RelayEndpoints;
  /** The system clock unless given (a test's fake clock). */
  clock?: Clock;
}

export function createInfra(src: InfraSources): Infra {
  const { config, engines } = src;
  // The key ring of stored provider credentials: CREDENTIALS_KEY, and the keys it replaced.
  const ring = new KeyRing(src.credentialsKey, previousCredentialsKeys(config));
  const lock = createLocks(engines.redis).run;
  const storage = createMediaStorage(config);
  const channels = createChannels(config);
  for (const warning of outboxOnlyWarnings(config, channels)) src.logger.warn(warning);
  return {
    ...src,
    clock: src.clock ?? systemClock,
    version,
    ring,
    lock,
    credentials: createTokenCache<Caller>(engines.redis),
    notifier: createNotifier(engines.temporal, config.TEMPORAL_TASK_QUEUE),
    channels,
    storage,
    media: createMediaService({ storage }),
    recorder: createActivityRecorder(engines.redis, src.logger),
    events: eventBusFor(engines.redis, config),
    brands: createBrandCache(engines.redis),
    outbound: outboundPolicy(config),
    webhooks: createWebhookSecrets({ ring, overlapSeconds: config.WEBHOOK_SECRET_OVERLAP_SECONDS, lock }),
  };
}
