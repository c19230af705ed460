import type { Infra } from '../infra';
import { SecretBox } from '../lib/crypto';
import type { AreaModule } from '../lib/module';
import { clientsRoutes } from './clients.routes';
import { createClientsService } from './clients.service';
import { createClientJobLimits } from './client-job-limits';

export type ClientsDeps = Pick<
  Infra,
  'credentialsKey' | 'credentials' | 'outbound' | 'webhooks' | 'notifier' | 'logger' | 'engines'
>;

/**
 * The tenants: clients with their credential triples (hashed, and sealed for scheduled work) and content
 * domains, and each client's webhook signing secret. A write that takes a triple's access away invalidates
 * the credential cache.
 */
export function createClientsModule(deps: ClientsDeps) {
  const jobLimits = createClientJobLimits(deps.engines.redis);
  const clients = createClientsService(
    new SecretBox(deps.credentialsKey),
    deps.credentials.invalidate,
    { notifier: deps.notifier, logger: deps.logger },
    jobLimits.invalidate,
  );
  return {
    handlers: clientsRoutes({ clients, webhooks: deps.webhooks, outbound: deps.outbound }),
    /** What other areas use: triples for authentication, content domains, credential health. */
    service: clients,
    /** Each client's own job limits, cached per process (the jobs area applies them). */
    jobLimits,
  } satisfies AreaModule;
}
