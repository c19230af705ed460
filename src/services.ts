import type { Config } from './lib/config';
import type { Engines } from './lib/engines';
import type { Logger } from './lib/logger';
import { createAuthService, type AuthService } from './auth/auth.service';
import { createContentServices, type ContentServices } from './content/content.service';
import type { Channels } from './notifications/channels';
import type { Notifier } from './notifications/notifier';
import { createUsersService, type UsersService } from './users/users.service';
import { createJobServices } from './jobs/job-services';
import type { JobsService } from './jobs/jobs.service';
import type { ResearchService } from './research/research.service';
import type { EventsService } from './events/events.service';
import { createIdapService, type IdapService } from './idap/idap.service';
import type { MediaService } from './media/media.service';
import { createBrandsService, type BrandsService } from './brands/brands.service';
import { createAccessRequests, type AccessRequests } from './agents/access-requests.service';
import { createTokens, type Tokens } from './agents/tokens.service';
import { createActivityService, type ActivityService } from './activity/activity.service';
import { createAdminServices, type AdminServices } from './admin/admin.services';
import { createPinsModule, type PinsModule } from './pins/pins.module';
import { createIntegrations, type Integrations } from './integrations/integrations.module';
import { createClientsModule, type ClientsModule } from './clients/clients.module';
import type { Infra } from './infra';

/** Everything a request handler may use, built once per process from config and engines. */
export interface Services {
  config: Config;
  engines: Engines;
  logger: Logger;
  version: string;
  temporalUiUrl: string | null;
  channels: Channels;
  notifier: Notifier;
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
  /** The areas already built as modules (each takes only what it uses). */
  modules: { pins: PinsModule; clients: ClientsModule };
}

export function createServices(infra: Infra): Services {
  const { config, engines, notifier } = infra;
  const opts = infra;
  const credentialCache = infra.credentials;
  const clients = createClientsModule(infra);
  const users = createUsersService({
    notifier,
    publicBaseUrl: config.publicBaseUrl,
    resetTtlSeconds: config.PASSWORD_RESET_TTL_SECONDS,
    invalidateCredentials: credentialCache.invalidate,
  });
  const auth = createAuthService({
    clients: clients.service,
    users,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
    credentialCache,
    redis: engines.redis,
    loginFailures: { max: config.LOGIN_MAX_FAILURES, seconds: config.LOGIN_FAILURE_WINDOW_SECONDS },
  });
  const content = createContentServices({
    clients: clients.service,
    redis: engines.redis,
    temporal: engines.temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    logger: opts.logger,
    validateResponses: config.VALIDATE_RESPONSES,
  });
  const brands = createBrandsService({
    redis: engines.redis,
    storage: infra.storage,
    lock: infra.lock,
    publicBaseUrl: () => config.publicBaseUrl,
    cache: infra.brands,
  });
  const agents = {
    requests: createAccessRequests({
      temporal: engines.temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      redis: engines.redis,
      credentialsKey: infra.credentialsKey,
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
    credentialsKey: infra.credentialsKey,
    endpoints: infra.relayEndpoints,
  });
  const pins = createPinsModule({ ...infra, mapsCredential: integrations.service.activeCredential });
  return {
    ...opts,
    ...createJobServices(opts),
    brands,
    agents,
    notifier,
    users,
    auth,
    content,
    idap: createIdapService(),
    admin: createAdminServices(opts),
    activity: createActivityService({ redis: engines.redis, logger: opts.logger }),
    integrations,
    modules: { pins, clients },
  };
}

/** The modules a worker-only process runs activities from (the API process builds them with its services). */
export function workerModules(infra: Infra) {
  const integrations = createIntegrations({
    ...infra,
    redis: infra.engines.redis,
    temporal: infra.engines.temporal,
    endpoints: infra.relayEndpoints,
  });
  return {
    infra,
    modules: { pins: createPinsModule({ ...infra, mapsCredential: integrations.service.activeCredential }) },
  };
}
