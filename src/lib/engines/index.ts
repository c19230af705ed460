import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type Redis from 'ioredis';
import type mongoose from 'mongoose';
import { connectMongo, type MongoPoolOptions } from './mongo';
import { connectRedis, createRedis, type RedisSentinels } from './redis';
import { createTemporalClient, type TemporalConnection } from './temporal';
import { createSearchAttributeGate, type SearchAttributeGate } from './search-attributes';

/** The engines one process talks to; every area gets them through this object, never through globals. */
export interface Engines {
  mongoose: typeof mongoose;
  redis: Redis;
  temporal: Client;
  /** What the Temporal client encrypts payloads with (the codec endpoint for the Temporal UI uses it too). */
  payloadCodec: PayloadCodec;
  /** Whether the namespace has the service's search attributes, which the client's starts carry once it has. */
  searchAttributes: SearchAttributeGate;
  kinds: { documents: string; workflows: string; cache: string };
}

export interface EngineUrls {
  mongoUri: string;
  mongoDb: string;
  mongoPool?: MongoPoolOptions;
  redisUrl: string;
  redisKeyPrefix: string;
  redisSentinels?: RedisSentinels;
  temporal: TemporalConnection;
  temporalNamespace: string;
  /** Encrypts workflow payloads; the worker is built with the same one. */
  payloadCodec: PayloadCodec;
  kinds: Engines['kinds'];
}

export async function connectEngines(urls: EngineUrls): Promise<Engines> {
  const redis = createRedis(urls.redisUrl, urls.redisKeyPrefix, urls.redisSentinels);
  const [mongooseInstance] = await Promise.all([
    connectMongo(urls.mongoUri, urls.mongoDb, urls.mongoPool),
    connectRedis(redis),
  ]);
  const searchAttributes = createSearchAttributeGate();
  const temporal = createTemporalClient(urls.temporal, urls.temporalNamespace, urls.payloadCodec, searchAttributes);
  return {
    mongoose: mongooseInstance,
    redis,
    temporal,
    payloadCodec: urls.payloadCodec,
    searchAttributes,
    kinds: urls.kinds,
  };
}

export async function closeEngines(engines: Engines): Promise<void> {
  engines.searchAttributes.stop();
  engines.redis.disconnect();
  await Promise.allSettled([engines.mongoose.disconnect(), engines.temporal.connection.close()]);
}
