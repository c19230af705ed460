import type { AreaModule } from '../lib/module';
import { locationsRoutes } from './locations.routes';

/** The countries and regions a maps-scrape job may name: a dataset in the code, needing nothing from outside. */
export function createLocationsModule() {
  return { handlers: locationsRoutes() } satisfies AreaModule;
}
