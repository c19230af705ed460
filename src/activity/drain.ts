import type Redis from 'ioredis';
import type { Logger } from '../lib/logger';
import { startStreamDrain, type DrainOptions, type StreamDrain } from '../lib/stream-drain';
import { activityStream } from './recorder';

/** Moves recorded activity from its Redis stream into MongoDB (see src/lib/stream-drain.ts). */
export function startActivityDrain(redis: Redis, logger: Logger, opts: DrainOptions = {}): StreamDrain {
  return startStreamDrain(redis, logger, activityStream, opts);
}
