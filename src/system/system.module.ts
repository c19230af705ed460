import type { AreaModule } from '../lib/module';
import { systemRoutes } from './system.routes';
import { createSystemService, type SystemServiceDeps } from './system.service';

export type SystemDeps = SystemServiceDeps;

/** The service about itself: health and readiness probes, facts, queue statistics and the Temporal UI's codec. */
export function createSystemModule(deps: SystemDeps) {
  return { handlers: systemRoutes({ system: createSystemService(deps) }) } satisfies AreaModule;
}
