import type { EngineName, FaultEngines } from './engines';
import type { ServiceProcess } from './service';

export interface FaultContext {
  engines: FaultEngines['engines'];
  service: ServiceProcess;
  /** Starts the service again (same port, data directory and engines) and makes it the current one. */
  restartService(): Promise<void>;
}

/**
 * One row of the matrix: what breaks, and how it comes back. `engine` is what health must name while it is
 * down (null: the service process itself is gone, so nothing answers). Later flows add their work to the
 * workload (workload.ts); a new kind of fault is one more row here.
 */
export interface FaultCase {
  name: string;
  engine: EngineName | null;
  inject(ctx: FaultContext): Promise<void>;
  recover(ctx: FaultContext): Promise<void>;
}

export const FAULT_CASES: FaultCase[] = [
  {
    name: 'API and worker process killed with kill -9, then started again',
    engine: null,
    inject: (ctx) => ctx.service.kill9(),
    recover: (ctx) => ctx.restartService(),
  },
  {
    name: 'redis-server stopped, then brought back',
    engine: 'redis',
    inject: (ctx) => ctx.engines.redis.stop(),
    recover: (ctx) => ctx.engines.redis.start(),
  },
  {
    name: 'document engine (FerretDB) stopped, then brought back',
    engine: 'mongodb',
    inject: (ctx) => ctx.engines.mongodb.stop(),
    recover: (ctx) => ctx.engines.mongodb.start(),
  },
  {
    name: 'Temporal stopped, then brought back',
    engine: 'temporal',
    inject: (ctx) => ctx.engines.temporal.stop(),
    recover: (ctx) => ctx.engines.temporal.start(),
  },
];
