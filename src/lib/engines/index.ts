import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type Redis from 'ioredis';
import type mongoose from 'mongoose';
import { connectMongo } from './mongo';
import { connectRedis, createRedis } from './redis';
import { createTemporalClient, type TemporalConnection } from './temporal';

/** The engines one process talks to; every area gets them through this object, never through globals. */
export interface Engines {
  mongoose: typeof mongoose;
  redis: Redis;
  temporal: Client;
  /** What the Temporal client encrypts payloads with (the codec endpoint for the Temporal UI uses it too). */
  payloadCodec: PayloadCodec;
  kinds: { documents: string; workflows: string; cache: string };
}

export interface EngineUrls {
  mongoUri: string;
  mongoDb: string;
  redisUrl: string;
  redisKeyPrefix: string;
  temporal: TemporalConnection;
  temporalNamespace: string;
  /** Encrypts workflow payloads; the worker is built with the same one. */
  payloadCodec: PayloadCodec;
  kinds: Engines['kinds'];
}

export async function connectEngines(urls: EngineUrls): Promise<Engines> {
  const redis = createRedis(urls.redisUrl, urls.redisKeyPrefix);
  const [mongooseInstance] = await Promise.all([connectMongo(urls.mongoUri, urls.mongoDb), connectRedis(redis)]);
  const temporal = createTemporalClient(urls.temporal, urls.temporalNamespace, urls.payloadCodec);
  return { mongoose: mongooseInstance, redis, temporal, payloadCodec: urls.payloadCodec, kinds: urls.kinds };
}

export async function closeEngines(engines: Engines): Promise<void> {
  engines.redis.disconnect();
  await Promise.allSettled([engines.mongoose.disconnect(), engines.temporal.connection.close()]);
}
