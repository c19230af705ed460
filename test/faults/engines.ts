import { startMongo, startRedis, startTemporal, type StartedEngine } from '../../tools/devstack/engines';
import { portsForDir } from '../../tools/devstack/ports';
import { BIN_DIR } from '../../src/lib/cache-dir';

export type EngineName = 'mongodb' | 'redis' | 'temporal';

/** One engine the fault matrix can stop and bring back on the same port and the same data files. */
export interface ControlledEngine {
  name: EngineName;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const binDir = BIN_DIR;

async function controlled(name: EngineName, launch: () => Promise<StartedEngine>): Promise<ControlledEngine> {
  let running: StartedEngine | null = await launch();
  const url = running.url;
  return {
    name,
    url,
    async stop() {
      await running?.stop();
      running = null;
    },
    async start() {
      if (running) return;
      running = await launch();
      if (running.url !== url) throw new Error(`${name} came back on ${running.url}, not ${url}`);
    },
  };
}

/**
 * The three engines of the service under test, started by this process (not by the service), so each
 * can be stopped and restarted on its own; started through the devstack's own functions.
 */
export async function startFaultEngines(dataDir: string) {
  const ports = portsForDir(dataDir);
  const base = { dataDir, binDir, progress: () => undefined };
  const [mongodb, redis, temporal] = await Promise.all([
    controlled('mongodb', () => startMongo({ ...base, port: ports.mongo })),
    controlled('redis', () => startRedis({ ...base, port: ports.redis })),
    controlled('temporal', () =>
      startTemporal({ ...base, port: ports.temporal, uiPort: ports.temporalUi, namespace: 'default' }),
    ),
  ]);
  return {
    engines: { mongodb, redis, temporal } as Record<EngineName, ControlledEngine>,
    async stopAll() {
      await Promise.allSettled([mongodb.stop(), redis.stop(), temporal.stop()]);
    },
  };
}

export type FaultEngines = Awaited<ReturnType<typeof startFaultEngines>>;
