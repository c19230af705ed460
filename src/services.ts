import type { Config } from './lib/config';
import type { Engines } from './lib/engines';
import type { Logger } from './lib/logger';
import { createAuthModule, type AuthModule } from './auth/auth.module';
import type { Notifier } from './notifications/notifier';
import { createUsersModule, type UsersModule } from './users/users.module';
import type { MediaService } from './media/media.service';
import { createBrandsModule, type BrandsModule } from './brands/brands.module';
import { createAgentsModule, type AgentsModule } from './agents/agents.module';
import { createActivityModule, type ActivityModule } from './activity/activity.module';
import { createAdminModule, type AdminModule } from './admin/admin.module';
import { createPinsModule, type PinsModule } from './pins/pins.module';
import { createIntegrationsModule, type IntegrationsModule } from './integrations/integrations.module';
import { createClientsModule, type ClientsModule } from './clients/clients.module';
import type { Infra } from './infra';
import { createLocationsModule, type LocationsModule } from './locations/locations.module';
import { createNotificationsModule, type NotificationsModule } from './notifications/notifications.module';
import { createSystemModule, type SystemModule } from './system/system.module';
import { createEventsModule, type EventsModule } from './events/events.module';
import type { Providers } from './providers';
import { createJobCore } from './jobs/job-core';
import { createJobsModule, type JobsModule } from './jobs/jobs.module';
import { createResearchModule, type ResearchModule } from './research/research.module';
import { createMediaModule, type MediaModule } from './media/media.module';
import { createIdapModule, type IdapModule } from './idap/idap.module';
import { createContentModule, type ContentModule } from './content/content.module';

/** Everything a request handler may use, built once per process from config and engines. */
export interface Services {
  config: Config;
  engines: Engines;
  logger: Logger;
  version: string;
  temporalUiUrl: string | null;
  notifier: Notifier;
  media: MediaService;
  /** The areas already built as modules (each takes only what it uses). */
  modules: {
    pins: PinsModule;
    clients: ClientsModule;
    users: UsersModule;
    auth: AuthModule;
    agents: AgentsModule;
    brands: BrandsModule;
    integrations: IntegrationsModule;
    activity: ActivityModule;
    admin: AdminModule;
    locations: LocationsModule;
    notifications: NotificationsModule;
    system: SystemModule;
    events: EventsModule;
    jobs: JobsModule;
    research: ResearchModule;
    media: MediaModule;
    idap: IdapModule;
    content: ContentModule;
  };
}

/** `providers`: the provider adapters, where this process also runs a worker (its modules' activities use them). */
export function createServices(infra: Infra, providers?: Providers): Services {
  const { notifier } = infra;
  const opts = infra;
  const clients = createClientsModule(infra);
  const users = createUsersModule(infra);
  const auth = createAuthModule({ ...infra, clients: clients.service, users: users.service });
  const brands = createBrandsModule(infra);
  const agents = createAgentsModule(infra);
  const integrations = createIntegrationsModule(infra);
  const pins = createPinsModule({ ...infra, mapsCredential: integrations.service.activeCredential });
  const jobCore = createJobCore({ ...infra, providers });
  return {
    ...opts,
    notifier,
    modules: {
      pins,
      clients,
      users,
      auth,
      agents,
      brands,
      integrations,
      activity: createActivityModule(infra),
      admin: createAdminModule(infra),
      locations: createLocationsModule(),
      notifications: createNotificationsModule(infra),
      system: createSystemModule({ ...infra, credentialHealth: clients.service.credentialHealth }),
      events: createEventsModule(infra),
      jobs: createJobsModule({ ...infra, core: jobCore }),
      research: createResearchModule({ ...infra, core: jobCore }),
      media: createMediaModule(infra),
      idap: createIdapModule(),
      content: createContentModule({ ...infra, clientByDomain: clients.service.byContentDomain }),
    },
  };
}

/** The modules a worker-only process runs activities from (the API process builds them with its services). */
export function workerModules(infra: Infra, providers: Providers) {
  const integrations = createIntegrationsModule(infra);
  // No API here: the job core accepts no jobs, so it sweeps none.
  const jobCore = createJobCore({ ...infra, providers, sweep: false });
  const clients = createClientsModule(infra);
  return {
    infra,
    providers,
    modules: {
      pins: createPinsModule({ ...infra, mapsCredential: integrations.service.activeCredential }),
      agents: createAgentsModule(infra),
      integrations,
      activity: createActivityModule(infra),
      notifications: createNotificationsModule(infra),
      jobs: createJobsModule({ ...infra, core: jobCore }),
      research: createResearchModule({ ...infra, core: jobCore }),
      content: createContentModule({ ...infra, clientByDomain: clients.service.byContentDomain }),
    },
  };
}
