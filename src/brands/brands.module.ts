import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { brandsRoutes } from './brands.routes';
import { createBrandsService } from './brands.service';

export type BrandsDeps = Pick<Infra, 'engines' | 'storage' | 'lock' | 'brands' | 'publicBaseUrl'>;

/**
 * Brands: a client's brands with their settings, information and logo (processed and stored in the media
 * storage, served publicly by its content hash) and their members. Every write invalidates the brand cache
 * the agent operations read.
 */
export function createBrandsModule(deps: BrandsDeps) {
  const { storage, lock } = deps;
  const brands = createBrandsService({
    redis: deps.engines.redis,
    storage,
    lock,
    publicBaseUrl: deps.publicBaseUrl,
    cache: deps.brands,
  });
  return {
    handlers: brandsRoutes({ brands }),
    /** Brands as other areas and tools see them: by id through the cache, and their logos' URLs. */
    service: brands,
  } satisfies AreaModule;
}
