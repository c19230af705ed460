import path from 'node:path';
import type { Progress } from './binaries';
import { lockDataDir } from './data-dir-lock';
import { startMongo, startRedis, startTemporal, type StartedEngine, type TemporalEngine } from './engines';

export interface DevstackOptions {
  dataDir: string;
  cacheDir: string;
  namespace: string;
  need: { mongo: boolean; redis: boolean; temporal: boolean };
  /** Preferred ports (stable URLs for `npm start`); tests leave them out and get free ones. */
  ports?: { mongo?: number; redis?: number; temporal?: number; temporalUi?: number };
  progress: Progress;
}

export interface Devstack {
  mongo?: StartedEngine;
  redis?: StartedEngine;
  temporal?: TemporalEngine;
  stop(): Promise<void>;
}

export const DEFAULT_PORTS = { mongo: 27117, redis: 6380, temporal: 7233, temporalUi: 8233 };

/**
 * Starts the local engines that no URL was configured for (DECISIONS.md §1), all state in one data directory.
 * The three start side by side; if one cannot start, the others are stopped again and the error names it.
 */
export async function startDevstack(opts: DevstackOptions): Promise<Devstack> {
  const lock = await lockDataDir(opts.dataDir, opts.progress);
  const binDir = path.join(opts.cacheDir, 'bin');
  const base = { dataDir: opts.dataDir, binDir, progress: opts.progress };
  const ports = opts.ports ?? {};
  const started: StartedEngine[] = [];
  const track = <T extends StartedEngine>(p: Promise<T>) => p.then((e) => (started.push(e), e));
  const results = await Promise.allSettled([
    opts.need.mongo ? track(startMongo({ ...base, port: ports.mongo })) : undefined,
    opts.need.redis ? track(startRedis({ ...base, port: ports.redis })) : undefined,
    opts.need.temporal
      ? track(startTemporal({ ...base, port: ports.temporal, uiPort: ports.temporalUi, namespace: opts.namespace }))
      : undefined,
  ]);
  const stopAll = async () => {
    await Promise.allSettled(started.map((e) => e.stop()));
    lock.release();
  };
  const failures = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${['documents (MongoDB)', 'cache (Redis)', 'workflows (Temporal)'][i]}: ${(r.reason as Error).message}`] : [],
  );
  if (failures.length) {
    await stopAll();
    throw new Error(`The devstack could not start:\n  ${failures.join('\n  ')}`);
  }
  const [mongo, redis, temporal] = results.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
  lock.engines(started.map((e) => e.pid));
  return {
    mongo: mongo as StartedEngine | undefined,
    redis: redis as StartedEngine | undefined,
    temporal: temporal as TemporalEngine | undefined,
    stop: stopAll,
  };
}
