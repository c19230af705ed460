import type { Infra } from '../infra';
import { SecretBox } from '../lib/crypto';
import type { AreaModule } from '../lib/module';
import { clientsRoutes } from './clients.routes';
import { createClientsService } from './clients.service';

export type ClientsDeps = Pick<
  Infra,
  'credentialsKey' | 'credentials' | 'outbound' | 'webhooks' | 'notifier' | 'logger'
>;

/**
 * The tenants: clients with their credential triples (hashed, and sealed for scheduled work) and content
 * domains, and each client's webhook signing secret. A write that takes a triple's access away invalidates
 * the credential cache.
 */
export function createClientsModule(deps: ClientsDeps) {
  const clients = createClientsService(new SecretBox(deps.credentialsKey), deps.credentials.invalidate, {
    notifier: deps.notifier,
    logger: deps.logger,
  });
  return {
    handlers: clientsRoutes({ clients, webhooks: deps.webhooks, outbound: deps.outbound }),
    /** What other areas use: triples for authentication, content domains, credential health. */
    service: clients,
  } satisfies AreaModule;
}
