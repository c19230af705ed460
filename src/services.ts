import type { Config } from './lib/config';
import { SecretBox } from './lib/crypto';
import type { Engines } from './lib/engines';
import type { Logger } from './lib/logger';
import { createAuthService, type AuthService } from './auth/auth.service';
import { createClientsService, type ClientsService } from './clients/clients.service';
import { createContentServices, type ContentServices } from './content/content.service';
import { createChannels, type Channels } from './notifications/channels';
import { createNotifier, type Notifier } from './notifications/notifier';
import { createUsersService, type UsersService } from './users/users.service';
import { createJobServices } from './jobs/job-services';
import type { JobsService } from './jobs/jobs.service';
import type { ResearchService } from './research/research.service';
import type { EventsService } from './events/events.service';
import { createIdapService, type IdapService } from './idap/idap.service';
import { createMediaService, type MediaService } from './media/media.service';
import { createMediaStorage } from './media/storage';
import { createBrandsService, type BrandsService } from './brands/brands.service';
import { createBrandCache } from './brands/brand-cache';
import { createLocks } from './lib/locks';
import { createAccessRequests, type AccessRequests } from './agents/access-requests.service';
import { createTokens, type Tokens } from './agents/tokens.service';
import { createTokenCache } from './auth/token-cache';
import type { Caller } from './lib/tenancy';
import { createActivityService, type ActivityService } from './activity/activity.service';
import { createAdminServices, type AdminServices } from './admin/admin.services';
import { createSignupService, type SignupService } from './pins/signup/signup.service';
import { createSignupTokens, signingKeys } from './pins/signup/tokens';
import { createPinsService, type PinsService } from './pins/pins.service';
import { createIntegrations, keyRingFor, type Integrations } from './integrations/integrations.module';
import { createWebhookSecrets, type WebhookSecrets } from './clients/webhook-secrets';
import { createRelayEndpoints, type RelayEndpoints } from './integrations/relay/endpoints';
import { version } from '../package.json';

/** Everything a request handler may use, built once per process from config and engines. */
export interface Services {
  config: Config;
  engines: Engines;
  logger: Logger;
  version: string;
  temporalUiUrl: string | null;
  channels: Channels;
  notifier: Notifier;
  clients: ClientsService;
  users: UsersService;
  auth: AuthService;
  jobs: JobsService;
  research: ResearchService;
  events: EventsService;
  content: ContentServices;
  idap: IdapService;
  media: MediaService;
  brands: BrandsService;
  agents: { requests: AccessRequests; tokens: Tokens };
  activity: ActivityService;
  admin: AdminServices;
  signup: SignupService;
  pins: PinsService;
  integrations: Integrations;
  /** Clients' webhook signing secrets (sealed; read and rotated by the dashboard operations). */
  webhookSecrets: WebhookSecrets;
}

export function createServices(opts: {
  config: Config;
  engines: Engines;
  logger: Logger;
  credentialsKey: string;
  temporalUiUrl: string | null;
  /** The relays' provider URLs (shared with an in-process worker, so both reach the same sandbox). */
  relayEndpoints?: RelayEndpoints;
}): Services {
  const { config, engines } = opts;
  const notifier = createNotifier(engines.temporal, config.TEMPORAL_TASK_QUEUE);
  // Resolved credentials of every kind, cached per process; any write that takes access away invalidates them all.
  const credentialCache = createTokenCache<Caller>(engines.redis);
  const clients = createClientsService(new SecretBox(opts.credentialsKey), credentialCache.invalidate);
  const users = createUsersService({
    notifier,
    publicBaseUrl: config.publicBaseUrl,
    resetTtlSeconds: config.PASSWORD_RESET_TTL_SECONDS,
    invalidateCredentials: credentialCache.invalidate,
  });
  const auth = createAuthService({
    clients,
    users,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
    credentialCache,
    redis: engines.redis,
    loginFailures: { max: config.LOGIN_MAX_FAILURES, seconds: config.LOGIN_FAILURE_WINDOW_SECONDS },
  });
  const content = createContentServices({
    clients,
    redis: engines.redis,
    temporal: engines.temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    logger: opts.logger,
    validateResponses: config.VALIDATE_RESPONSES,
  });
  const storage = createMediaStorage(config);
  const brands = createBrandsService({
    redis: engines.redis,
    storage,
    lock: createLocks(engines.redis).run,
    publicBaseUrl: () => config.publicBaseUrl,
    cache: createBrandCache(engines.redis),
  });
  const agents = {
    requests: createAccessRequests({
      temporal: engines.temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      redis: engines.redis,
      credentialsKey: opts.credentialsKey,
      publicBaseUrl: () => config.publicBaseUrl,
      ttlSeconds: config.ACCESS_REQUEST_TTL_SECONDS,
      ratePerHour: config.ACCESS_REQUEST_RATE_PER_HOUR,
    }),
    tokens: createTokens({ invalidate: credentialCache.invalidate }),
  };
  const integrations = createIntegrations({
    config,
    redis: engines.redis,
    temporal: engines.temporal,
    notifier,
    logger: opts.logger,
    credentialsKey: opts.credentialsKey,
    endpoints: opts.relayEndpoints ?? createRelayEndpoints(config),
  });
  const ring = keyRingFor(config, opts.credentialsKey);
  const signup = createSignupService({
    temporal: engines.temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    redis: engines.redis,
    notifier,
    ring,
    tokens: createSignupTokens(signingKeys(config.SIGNUP_TOKEN_KEYS, opts.credentialsKey)),
    publicBaseUrl: () => config.publicBaseUrl,
    reservationTtlSeconds: config.PIN_RESERVATION_TTL_SECONDS,
    linkSendWaitMs: config.SIGNUP_LINK_SEND_WAIT_MS,
    completeWaitMs: config.PIN_COMPLETE_WAIT_MS,
    callback: { initial_ms: config.PIN_CALLBACK_RETRY_INITIAL_MS, total_seconds: config.PIN_CALLBACK_RETRY_SECONDS },
    mapsCredential: integrations.service.activeCredential,
    confirmLimits: {
      perCallerPerHour: config.CONFIRM_PIN_PER_CALLER_PER_HOUR,
      perRecipientPerDay: config.CONFIRM_PIN_PER_RECIPIENT_PER_DAY,
    },
  });
  return {
    ...opts,
    ...createJobServices(opts),
    signup,
    brands,
    agents,
    version,
    notifier,
    clients,
    users,
    auth,
    content,
    channels: createChannels(config),
    idap: createIdapService(),
    media: createMediaService({ storage }),
    admin: createAdminServices(opts),
    activity: createActivityService({ redis: engines.redis, logger: opts.logger }),
    pins: createPinsService(config, engines.redis),
    integrations,
    webhookSecrets: createWebhookSecrets({
      ring,
      overlapSeconds: config.WEBHOOK_SECRET_OVERLAP_SECONDS,
      lock: createLocks(engines.redis).run,
    }),
  };
}
