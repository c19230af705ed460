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
import { createLocks } from './lib/locks';
import { createAccessRequests, type AccessRequests } from './agents/access-requests.service';
import { createTokens, type Tokens } from './agents/tokens.service';
import { createTokenCache } from './auth/token-cache';
import type { AccessTokenDoc } from './auth/access-token.model';
import { createActivityService, type ActivityService } from './activity/activity.service';
import { createAdminServices, type AdminServices } from './admin/admin.services';
import { createIntegrations, type Integrations } from './integrations/integrations.module';
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
  integrations: Integrations;
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
  const clients = createClientsService(new SecretBox(opts.credentialsKey));
  const users = createUsersService({ notifier, publicBaseUrl: config.publicBaseUrl, resetTtlSeconds: config.PASSWORD_RESET_TTL_SECONDS });
  const tokenCache = createTokenCache<AccessTokenDoc>(engines.redis);
  const auth = createAuthService({ clients, users, sessionTtlSeconds: config.SESSION_TTL_SECONDS, tokenCache });
  const content = createContentServices({
    clients, redis: engines.redis, temporal: engines.temporal, taskQueue: config.TEMPORAL_TASK_QUEUE,
    logger: opts.logger, validateResponses: config.VALIDATE_RESPONSES,
  });
  const storage = createMediaStorage(config);
  const brands = createBrandsService({
    redis: engines.redis, storage, lock: createLocks(engines.redis).run, publicBaseUrl: () => config.publicBaseUrl,
  });
  const agents = {
    requests: createAccessRequests({
      temporal: engines.temporal, taskQueue: config.TEMPORAL_TASK_QUEUE, redis: engines.redis, credentialsKey: opts.credentialsKey,
      publicBaseUrl: () => config.publicBaseUrl, ttlSeconds: config.ACCESS_REQUEST_TTL_SECONDS, ratePerHour: config.ACCESS_REQUEST_RATE_PER_HOUR,
    }),
    tokens: createTokens({ invalidate: tokenCache.invalidate }),
  };
  return {
    ...opts, ...createJobServices(opts), brands, agents, version, notifier, clients, users, auth, content, channels: createChannels(config),
    idap: createIdapService(), media: createMediaService({ storage }), admin: createAdminServices(opts),
    activity: createActivityService({ redis: engines.redis, logger: opts.logger }),
    integrations: createIntegrations({
      config, redis: engines.redis, temporal: engines.temporal, notifier, logger: opts.logger, credentialsKey: opts.credentialsKey,
      endpoints: opts.relayEndpoints ?? createRelayEndpoints(config),
    }),
  };
}
