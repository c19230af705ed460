import type { Db } from 'mongodb';
import type { EngineName, FaultEngines } from './engines';
import type { ServiceProcess } from './service';
import { startOverload, type Overload } from './overload';
import { createTenant, type Tenant } from './workload';
import { eventually } from '../support/eventually';

export interface FaultContext {
  engines: FaultEngines['engines'];
  service: ServiceProcess;
  /** Starts the service again (same port, data directory and engines) and makes it the current one. */
  restartService(): Promise<void>;
  /** A super_admin session, and the service's database as the matrix reads it. */
  login(): Promise<string>;
  db(): Db;
}

/**
 * One row of the matrix: what breaks, and how it comes back. `engine` is what health must name while it is
 * down (null: the service process itself is gone, so nothing answers). Later flows add their work to the
 * workload (workload.ts); a new kind of fault is one more row here.
 */
export interface FaultCase {
  name: string;
  engine: EngineName | null;
  /** The service stays up through the fault (it is load, not a stop): probes run meanwhile as for an engine. */
  up?: true;
  inject(ctx: FaultContext): Promise<void>;
  recover(ctx: FaultContext): Promise<void>;
  /** The case's own checks once everything else held; answers its figures. */
  verify?(ctx: FaultContext): Promise<Record<string, unknown>>;
}

/** The overload case's flood and its tenant, between its steps. */
let overload: { tenant: Tenant; flood: Overload } | null = null;

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
    // The service said so in its log, both ways (an operator's view of an outage, and of its end).
    async verify(ctx) {
      const logged = ['document engine unreachable', 'document engine reachable again'];
      expect(logged.filter((line) => !ctx.service.output().includes(line))).toEqual([]);
      return { logged };
    },
  },
  {
    name: 'Temporal stopped, then brought back',
    engine: 'temporal',
    inject: (ctx) => ctx.engines.temporal.stop(),
    recover: (ctx) => ctx.engines.temporal.start(),
  },
  {
    // Nothing accepted is lost: each job answered 200 completes, and a refused one was never recorded (the flood
    // tenant's jobs are exactly those accepted); the flood's answers are 200 or a fast 503 with Retry-After.
    name: 'overload, then normal load',
    engine: null,
    up: true,
    async inject(ctx) {
      const base = () => ctx.service.url;
      const tenant = await createTenant(base(), await ctx.login(), `Flood ${Date.now().toString(36)}`);
      overload = { tenant, flood: startOverload(base, tenant, 'flood') };
    },
    recover: () => overload!.flood.stop(),
    async verify(ctx) {
      const { tenant, flood } = overload!;
      expect(flood.unexpected).toEqual([]);
      const figures = flood.figures();
      expect(figures.refused_503).toBeGreaterThan(0); // it was past capacity
      expect(flood.accepted.length).toBeGreaterThan(0);
      const jobs = ctx.db().collection('jobs');
      expect(await jobs.countDocuments({ client_id: tenant.client_id })).toBe(flood.accepted.length);
      await eventually(
        async () =>
          (await jobs.countDocuments({ _id: { $in: flood.accepted as never[] }, status: 'completed' })) ===
          flood.accepted.length
            ? true
            : undefined,
        150_000,
        1000,
        'every accepted flood job completed',
      );
      return figures;
    },
  },
];
