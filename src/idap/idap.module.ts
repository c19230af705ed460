import type { AreaModule } from '../lib/module';
import { idapRoutes } from './idap.routes';
import { createIdapService } from './idap.service';

/**
 * The resource access layer's lead data (`idap://<type>/<id>`): read in batches and searched per type. The job
 * activities write and index it (resources.service.ts); its media has a module of its own (src/media).
 */
export function createIdapModule() {
  return { handlers: idapRoutes({ idap: createIdapService() }) } satisfies AreaModule;
}
