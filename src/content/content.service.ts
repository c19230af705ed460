import type { Client } from '@temporalio/client';
import type Redis from 'ioredis';
import type { ClientsService } from '../clients/clients.service';
import type { Logger } from '../lib/logger';
import { createAuthoringService } from './authoring.service';
import { createContentCache } from './content-cache';
import { createDeployHooks } from './deploy-hook';
import { createPublicResponder } from './public-http';
import { createPostViews } from './post-views';
import { createPublicContentService } from './public.service';

/** The content area: authoring (dashboard), public reads, their Redis cache and the deploy hook. */
export function createContentServices(deps: {
  clients: ClientsService;
  redis: Redis;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  validateResponses: boolean;
}) {
  const cache = createContentCache(deps.redis, deps.logger);
  return {
    cache,
    authoring: createAuthoringService({ cache, hooks: createDeployHooks(deps.temporal, deps.taskQueue) }),
    public: createPublicContentService({
      clients: deps.clients,
      views: createPostViews({ redis: deps.redis, logger: deps.logger }),
    }),
    responder: createPublicResponder(cache, { validateResponses: deps.validateResponses }),
  };
}

export type ContentServices = ReturnType<typeof createContentServices>;
