import type Redis from 'ioredis';
import type { Request } from 'express';
import { AppError } from '../lib/errors';
import type { Logger } from '../lib/logger';
import { createLocks, type RunLocked } from '../lib/locks';
import { requireTenant } from '../lib/tenancy';
import { ClientModel } from '../clients/client.model';
import { createActivityRecorder, type ActivityRecorder } from './recorder';

export interface ActivityService {
  recorder: ActivityRecorder;
  lock: RunLocked;
  /** The client a shift/digest/anomaly request acts for (a super_admin's must exist: 422 otherwise). */
  clientOf(req: Request): Promise<{ _id: string; name: string; created_at: Date }>;
}

export function createActivityService(deps: { redis: Redis; logger: Logger }): ActivityService {
  return {
    recorder: createActivityRecorder(deps.redis, deps.logger),
    lock: createLocks(deps.redis).run,
    async clientOf(req) {
      const clientId = requireTenant(req);
      const client = await ClientModel.findById(clientId, { name: 1, created_at: 1 }).lean<{
        _id: string;
        name: string;
        created_at: Date;
      }>();
      if (!client) {
        throw AppError.invalid('X-Selected-Client-Id names no client', [
          { location: 'header', field: 'X-Selected-Client-Id', message: 'no such client' },
        ]);
      }
      return client;
    },
  };
}
