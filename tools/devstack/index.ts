import path from 'node:path';
import type { DevstackModule } from '../../src/lib/engines/local-engines';
import type { Progress } from './binaries';
import { lockDataDir } from './data-dir-lock';
import { startMongo, startRedis, startTemporal, type StartedEngine, type TemporalEngine } from './engines';
import { portOf, portsForDir, rememberPorts, type EnginePorts } from './ports';

export interface DevstackOptions {
  dataDir: string;
  cacheDir: string;
  namespace: string;
  need: { mongo: boolean; redis: boolean; temporal: boolean };
  /**
   * Ports for a directory that has none recorded yet; left out, derived from its path (portsForDir). Busy ones fall
   * back to free ones.
   */
  ports?: EnginePorts;
  progress: Progress;
  /** The Temporal UI's codec endpoint (the service's own), when the service's address is known ahead. */
  uiCodecEndpoint?: string;
}

export interface Devstack {
  mongo?: StartedEngine;
  redis?: StartedEngine;
  temporal?: TemporalEngine;
  stop(): Promise<void>;
}

export const DEFAULT_PORTS = { mongo: 27117, redis: 6380, temporal: 7233, temporalUi: 8233 };

/**
 * Starts the local engines that no URL was configured for (docs/decisions.md §1), all state in one data directory.
 * The three start side by side; if one cannot start, the others are stopped again and the error names it.
 */
export async function startDevstack(opts: DevstackOptions): Promise<Devstack> {
  const lock = await lockDataDir(opts.dataDir, opts.progress);
  const binDir = path.join(opts.cacheDir, 'bin');
  const base = { dataDir: opts.dataDir, binDir, progress: opts.progress };
  const ports = portsForDir(opts.dataDir, opts.ports);
  const started: StartedEngine[] = [];
  // A preferred port free when checked can be taken before the engine binds it: then once more on any free port.
  const track = <T extends StartedEngine>(start: (preferred: boolean) => Promise<T>) =>
    start(true)
      .catch(() => start(false))
      .then((e) => (started.push(e), e));
  const results = await Promise.allSettled([
    opts.need.mongo ? track((p) => startMongo({ ...base, port: p ? ports.mongo : undefined })) : undefined,
    opts.need.redis ? track((p) => startRedis({ ...base, port: p ? ports.redis : undefined })) : undefined,
    opts.need.temporal
      ? track((p) =>
          startTemporal({
            ...base,
            port: p ? ports.temporal : undefined,
            uiPort: p ? ports.temporalUi : undefined,
            namespace: opts.namespace,
            uiCodecEndpoint: opts.uiCodecEndpoint,
          }),
        )
      : undefined,
  ]);
  const stopAll = async () => {
    await Promise.allSettled(started.map((e) => e.stop()));
    lock.release();
  };
  const failures = results.flatMap((r, i) =>
    r.status === 'rejected'
      ? [`${['documents (MongoDB)', 'cache (Redis)', 'workflows (Temporal)'][i]}: ${(r.reason as Error).message}`]
      : [],
  );
  if (failures.length) {
    await stopAll();
    throw new Error(`The devstack could not start:\n  ${failures.join('\n  ')}`);
  }
  const [mongo, redis, temporal] = results.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
  lock.engines(started.map((e) => e.pid));
  const t = temporal as TemporalEngine | undefined;
  rememberPorts(opts.dataDir, {
    ...ports,
    mongo: portOf(mongo?.url) ?? ports.mongo,
    redis: portOf(redis?.url) ?? ports.redis,
    temporal: portOf(t?.url) ?? ports.temporal,
    temporalUi: portOf(t?.uiUrl) ?? ports.temporalUi,
  });
  return {
    mongo: mongo as StartedEngine | undefined,
    redis: redis as StartedEngine | undefined,
    temporal: temporal as TemporalEngine | undefined,
    stop: stopAll,
  };
}

/**
 * The service's seam (src/lib/engines/local-engines.ts loads this module by path when an engine URL is unset): typed
 * by the service's DevstackModule, so a change on either side fails typecheck.
 */
export const startLocalEngines: DevstackModule['startLocalEngines'] = ({ defaultPorts, ...rest }) =>
  startDevstack({ ...rest, ports: defaultPorts ? DEFAULT_PORTS : undefined });
