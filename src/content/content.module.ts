import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import type { ClientsService } from '../clients/clients.service';
import { createContentActivities } from '../../activities/content';
import { createAuthoringService } from './authoring.service';
import { createContentCache } from './content-cache';
import { createContentMedia } from './content-media';
import { contentRoutes } from './content.routes';
import { createContentWorkflows } from './content.workflows';
import { createDeployHooks } from './deploy-hook';
import { createPostViews } from './post-views';
import { publicContentFastPath } from './public-fast-path';
import { createPublicResponder } from './public-http';
import { createPublicContentService } from './public.service';

export type ContentDeps = Pick<
  Infra,
  'config' | 'engines' | 'logger' | 'outbound' | 'webhooks' | 'storage' | 'publicBaseUrl'
> & {
  /** The client serving a content domain (the clients area), for the public reads' X-Content-Domain. */
  clientByDomain: ClientsService['byContentDomain'];
  /** The content domains a client serves (the clients area), shown to its authors for previews. */
  contentDomainsOf: ClientsService['contentDomainsOf'];
};

/**
 * Clients' site content: authoring through the dashboard (authors, tags, categories, posts, pages, publishing
 * with the deploy hook's workflow, images uploaded for covers), and the public reads chosen by X-Content-Domain through a Redis cache.
 */
export function createContentModule(deps: ContentDeps) {
  const { config, engines } = deps;
  const cache = createContentCache(engines.redis, deps.logger);
  const workflows = createContentWorkflows(engines.temporal, config.TEMPORAL_TASK_QUEUE);
  const authoring = createAuthoringService({ cache, hooks: createDeployHooks(workflows) });
  const views = createPostViews({ redis: engines.redis, logger: deps.logger });
  const pub = createPublicContentService({ clientByDomain: deps.clientByDomain, views });
  const responder = createPublicResponder(cache, { validateResponses: config.VALIDATE_RESPONSES });
  return {
    handlers: contentRoutes({
      authoring,
      pub,
      responder,
      contentDomainsOf: deps.contentDomainsOf,
      media: createContentMedia({ storage: deps.storage, publicBaseUrl: deps.publicBaseUrl }),
    }),
    activities: createContentActivities(deps),
    /** Answers cached public reads before body parsing and validation (the app mounts it first). */
    fastPath: publicContentFastPath({ cache, pub, responder }),
    /** Writing content without a request (the benchmarks seed sites through it). */
    authoring,
    /** The view counts read but not written yet go to MongoDB before the engines close. */
    close: views.close,
  } satisfies AreaModule;
}
