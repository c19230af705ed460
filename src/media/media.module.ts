import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { mediaRoutes } from './media.routes';

export type MediaDeps = Pick<Infra, 'media'>;

/**
 * Media of the resource access layer (`idap://media/<id>`): stored by the job activities through the media
 * service in infra, served here with validators and thumbnails.
 */
export function createMediaModule(deps: MediaDeps) {
  return { handlers: mediaRoutes({ media: deps.media }) } satisfies AreaModule;
}
