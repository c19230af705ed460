import path from 'node:path';
import type Redis from 'ioredis';
import { chunksOf } from '../../../src/lib/arrays';
import { connectMongo } from '../../../src/lib/engines/mongo';
import { connectRedis, createRedis } from '../../../src/lib/engines/redis';
import { createLocks, type RunLocked } from '../../../src/lib/locks';
import { announceThrough } from '../../../src/idap/search/index-changes';
import { idapRef, resourceId, type ResourceType } from '../../../src/idap/resources/resource.model';
import { seedResources as writeSeed, type SeedResource } from '../../../test/support/resources';
import { createMediaService } from '../../../src/media/media.service';
import { LocalStorage } from '../../../src/media/storage';

/**
 * Leads for the journeys, written by production's write path (test/support/resources.ts: writeResources, the search
 * index, the flags as the API sets them; every process's cache told) into the run's database: no API
 * call makes thousands of leads quickly. The run's database, Redis prefix and data directory come from the global
 * setup (E2E_MONGODB_DB, E2E_REDIS_KEY_PREFIX, E2E_DATA_DIR); the engines' addresses are the run's
 * (MONGODB_URI, REDIS_URL). Connected once per worker process.
 */
let engines: Promise<{ redis: Redis; lock: RunLocked }> | undefined;
function connect() {
  engines ??= (async () => {
    const env = (name: string) => {
      const value = process.env[name];
      if (!value) throw new Error(`${name} is not set: the console's global setup sets it`);
      return value;
    };
    await connectMongo(env('MONGODB_URI'), env('E2E_MONGODB_DB'));
    const redis = createRedis(env('REDIS_URL'), env('E2E_REDIS_KEY_PREFIX'));
    await connectRedis(redis);
    announceThrough(redis);
    return { redis, lock: createLocks(redis).run };
  })();
  return engines;
}

/** A 32×24 PNG: a business's photo. */
const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAACAAAAAYCAIAAAAUMWhjAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAMElEQVRIiWM4YKlNU8QwaoHlaBBpj6aiA6MZTXu0qDgwWppajlY4B0arTMvB3aoAAMGXbC4RxpPfAAAAAElFTkSuQmCC',
  'base64',
);

/** Writes resources for a tenant, 500 at a time; answers their refs in order. */
export async function seedResources(clientId: string, items: SeedResource[]): Promise<string[]> {
  const { lock } = await connect();
  const refs: string[] = [];
  for (const part of chunksOf(items, 500)) refs.push(...(await writeSeed(clientId, part, lock)).refs);
  return refs;
}

/** Stores a photo of the tenant as a job's activity does (the media service); answers its idap://media ref. */
export async function seedPhoto(clientId: string): Promise<string> {
  await connect();
  const media = createMediaService({ storage: new LocalStorage(path.join(process.env.E2E_DATA_DIR!, 'media')) });
  const [stored] = await media.storeFiles(clientId, [
    { body: PHOTO, contentType: 'image/png', filename: 'storefront.png' },
  ]);
  return stored.idap_ref;
}

export const refOf = (clientId: string, type: ResourceType, naturalKey: string) =>
  idapRef(type, resourceId(clientId, type, naturalKey));

/** `n` businesses named `<prefix> <i>`, the even ones qualified (oldest first: the list's order). */
export function businesses(n: number, prefix = 'Business', from = 0): SeedResource[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      type: 'businesses' as const,
      naturalKey: `${prefix}-${i}`,
      data: {
        name: `${prefix} ${i}`,
        category: 'Bakery',
        address: `Oudegracht ${i}, 3511 Utrecht`,
        country_code: 'NL',
        region_code: 'NL-UT',
        rating: 4.5,
      },
      flags: i % 2 === 0 ? ['new', 'qualified'] : ['new'],
    };
  });
}
