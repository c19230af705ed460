import type { Infra } from './infra';
import type { Providers } from './providers';
import { createActivityModule } from './activity/activity.module';
import { createAdminModule } from './admin/admin.module';
import { createAgentsModule } from './agents/agents.module';
import { createAuthModule } from './auth/auth.module';
import { createBrandsModule } from './brands/brands.module';
import { createClientsModule } from './clients/clients.module';
import { createContentModule } from './content/content.module';
import { createEventsModule } from './events/events.module';
import { createIdapModule } from './idap/idap.module';
import { createIntegrationsModule } from './integrations/integrations.module';
import { createJobCore } from './jobs/job-core';
import { createJobsModule } from './jobs/jobs.module';
import { createLocationsModule } from './locations/locations.module';
import { createMediaModule } from './media/media.module';
import { createNotificationsModule } from './notifications/notifications.module';
import { createPinsModule } from './pins/pins.module';
import { createResearchModule } from './research/research.module';
import { createRetentionModule } from './retention/retention.module';
import { createSystemModule } from './system/system.module';
import { createUsersModule } from './users/users.module';
import { createWatchesModule } from './watches/watches.module';

export interface ModuleOptions {
  /** The provider adapters, where this process runs a worker (the job modules' activities use them). */
  providers?: Providers;
  /** An API process accepts jobs (and starts the ones accepted while Temporal was away) and keeps the logs. */
  serves: boolean;
}

/**
 * Every area of the service, built once per process from the shared pieces (src/infra.ts): the API mounts their
 * handlers and pages, the worker runs their activities. Adding an area is its folder and one line here.
 */
export function createModules(infra: Infra, opts: ModuleOptions) {
  const clients = createClientsModule(infra);
  const integrations = createIntegrationsModule(infra);
  const jobCore = createJobCore({
    ...infra,
    providers: opts.providers,
    sweep: opts.serves,
    clientLimits: clients.jobLimits,
  });
  const jobs = createJobsModule({ ...infra, core: jobCore });
  // Before the users and agents: a user deactivated or a token revoked pauses the watches it created.
  const watches = createWatchesModule({ ...infra, core: jobCore, clientActive: clients.service.isActive });
  const users = createUsersModule({ ...infra, creatorGone: watches.creatorGone });
  return {
    clients,
    users,
    auth: createAuthModule({ ...infra, clients: clients.service, users: users.service }),
    brands: createBrandsModule(infra),
    agents: createAgentsModule({ ...infra, creatorGone: watches.creatorGone }),
    integrations,
    pins: createPinsModule({ ...infra, mapsCredential: integrations.service.activeCredential }),
    jobs,
    research: createResearchModule({ ...infra, core: jobCore }),
    watches,
    events: createEventsModule(infra),
    locations: createLocationsModule(),
    content: createContentModule({
      ...infra,
      clientByDomain: clients.service.byContentDomain,
      contentDomainsOf: clients.service.contentDomainsOf,
    }),
    media: createMediaModule(infra),
    idap: createIdapModule(infra),
    activity: createActivityModule(infra),
    admin: createAdminModule({ ...infra, captureLogs: opts.serves }),
    notifications: createNotificationsModule(infra),
    retention: createRetentionModule(infra),
    system: createSystemModule({
      ...infra,
      credentialHealth: clients.service.credentialHealth,
      activeJobCounts: jobs.service.activeJobCounts,
    }),
  };
}

export type Modules = ReturnType<typeof createModules>;
