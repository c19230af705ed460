import fs from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import Redis from 'ioredis';
import { Connection } from '@temporalio/client';
import { TEMPORAL_BUILD, goBuild, onPath, type Progress } from './binaries';
import { REDIS_SERVER, ensureSystemPackages } from './system-packages';
import { ferretdbBuild } from './ferretdb/build';
import { ManagedProcess } from '../../src/lib/managed-process';
import { LEAD_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { canConnect, preferredPort } from './ports';

export interface StartedEngine {
  /** What runs it, for /system/info and the start-up banner (e.g. "ferretdb 1.24 (sqlite)"). */
  kind: string;
  url: string;
  /** The engine's process, when the devstack started one. */
  pid?: number;
  stop(): Promise<void>;
}

export interface EngineOptions {
  dataDir: string;
  binDir: string;
  progress: Progress;
  port?: number;
}

async function pingMongo(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1000, connectTimeoutMS: 1000 });
  try {
    await client.db('admin').command({ ping: 1 });
    return true;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** MongoDB-wire server: `mongod` if on PATH; else FerretDB (SQLite backend); else mongodb-memory-server's download. */
export async function startMongo(opts: EngineOptions): Promise<StartedEngine> {
  const port = await preferredPort(opts.port);
  const url = `mongodb://127.0.0.1:${port}/`;
  const ready = () => canConnect(port).then((up) => up && pingMongo(url));
  const logFile = path.join(opts.dataDir, 'logs', 'mongo.log');
  const mongod = onPath('mongod');
  if (mongod) {
    const dbPath = path.join(opts.dataDir, 'mongod');
    fs.mkdirSync(dbPath, { recursive: true });
    const args = ['--dbpath', dbPath, '--port', String(port), '--bind_ip', '127.0.0.1', '--quiet'];
    return startProcess('mongod', { name: 'mongod', command: mongod, logFile, ready, args }, url);
  }
  let ferretdb = onPath('ferretdb');
  if (!ferretdb) {
    try {
      ferretdb = await goBuild(ferretdbBuild(), opts.binDir, opts.progress);
    } catch (err) {
      opts.progress(`FerretDB unavailable (${(err as Error).message.split('\n')[0]}); trying mongodb-memory-server`);
    }
  }
  if (ferretdb) {
    const dir = path.join(opts.dataDir, 'ferretdb');
    fs.mkdirSync(dir, { recursive: true });
    const args = [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--state-dir=${dir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=warn',
    ];
    // Go's collector runs when the heap doubles; the engine's live heap is a few megabytes and it allocates a
    // decoded document per document read, so it collected many times a second under load (a quarter of its CPU
    // in the soak). Growing five times first took ~20% off its CPU (docs/performance.md, "Load"); an operator's
    // own GOGC wins.
    const env = { ...process.env, GOGC: process.env.GOGC ?? '400' };
    return startProcess(
      'ferretdb 1.24 (sqlite)',
      { name: 'ferretdb', command: ferretdb, logFile, ready, args, env },
      url,
    );
  }
  return startMemoryServer(opts, port);
}

/** Starts an engine's process and answers it as a started engine of `kind` at `url`. */
async function startProcess(
  kind: string,
  options: ConstructorParameters<typeof ManagedProcess>[0],
  url: string,
): Promise<StartedEngine> {
  const proc = new ManagedProcess(options);
  await proc.start();
  return { kind, url, pid: proc.pid, stop: () => proc.stop() };
}

async function startMemoryServer(opts: EngineOptions, port: number): Promise<StartedEngine> {
  const moduleName = 'mongodb-memory-server-core';
  let mod: typeof import('mongodb-memory-server-core');
  try {
    mod = await import(moduleName);
  } catch {
    throw new Error(
      'No MongoDB-wire server: mongod is not on PATH, FerretDB could not be built with Go, and ' +
        'mongodb-memory-server-core is not installed. Install MongoDB 7 or set MONGODB_URI.',
    );
  }
  const dbPath = path.join(opts.dataDir, 'mongo-memory');
  fs.mkdirSync(dbPath, { recursive: true });
  opts.progress('starting mongodb-memory-server (downloads mongod on first use)…');
  const server = await mod.MongoMemoryServer.create({ instance: { port, dbPath, storageEngine: 'wiredTiger' } });
  return {
    kind: 'mongodb-memory-server',
    url: server.getUri(),
    stop: async () => void (await server.stop({ doCleanup: false })),
  };
}

/** `redis-server` from PATH, else Debian's package where apt can install it (docs/decisions.md §1). */
async function redisServerBinary(progress: Progress): Promise<string> {
  try {
    await ensureSystemPackages([REDIS_SERVER], progress);
  } catch (err) {
    throw new Error(`${(err as Error).message} Or set REDIS_URL to a running Redis 7.`, { cause: err });
  }
  return onPath(REDIS_SERVER.command)!;
}

/** redis-server with an append-only file in the data directory, so queued events survive a restart. */
export async function startRedis(opts: EngineOptions): Promise<StartedEngine> {
  const binary = await redisServerBinary(opts.progress);
  const port = await preferredPort(opts.port);
  const dir = path.join(opts.dataDir, 'redis');
  fs.mkdirSync(dir, { recursive: true });
  const url = `redis://127.0.0.1:${port}`;
  return startProcess(
    'redis-server',
    {
      name: 'redis-server',
      command: binary,
      logFile: path.join(opts.dataDir, 'logs', 'redis.log'),
      args: [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--save',
        '',
        '--protected-mode',
        'yes',
      ],
      ready: async () => {
        if (!(await canConnect(port))) return false;
        const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        try {
          await client.connect();
          return (await client.ping()) === 'PONG';
        } finally {
          client.disconnect();
        }
      },
    },
    url,
  );
}

export interface TemporalEngine extends StartedEngine {
  uiUrl: string | null;
}

/** The Temporal CLI dev server with its UI and a SQLite file, so runs survive a restart. */
export async function startTemporal(
  opts: EngineOptions & { uiPort?: number; namespace: string; uiCodecEndpoint?: string },
): Promise<TemporalEngine> {
  const port = await preferredPort(opts.port);
  const uiPort = await preferredPort(opts.uiPort);
  const dir = path.join(opts.dataDir, 'temporal');
  fs.mkdirSync(dir, { recursive: true });
  const dbFilename = path.join(dir, 'temporal.db');
  const address = `127.0.0.1:${port}`;
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  let binary = onPath('temporal');
  if (!binary) {
    try {
      binary = await goBuild(TEMPORAL_BUILD, opts.binDir, opts.progress);
    } catch (err) {
      opts.progress(
        `Temporal CLI could not be built (${(err as Error).message.split('\n')[0]}); ` +
          "trying @temporalio/testing's download",
      );
    }
  }
  if (!binary) return startTemporalDownload(opts, port, uiPort, dbFilename);
  const started = await startProcess(
    'temporal dev server',
    {
      name: 'temporal',
      command: binary,
      logFile: path.join(opts.dataDir, 'logs', 'temporal.log'),
      readyTimeoutMs: 90_000,
      args: [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--ui-port',
        String(uiPort),
        '--db-filename',
        dbFilename,
        '--namespace',
        opts.namespace,
        '--log-level',
        'warn',
        // The UI decrypts payloads through the service's codec endpoint (the operator signs in as a super_admin).
        ...(opts.uiCodecEndpoint ? ['--ui-codec-endpoint', opts.uiCodecEndpoint] : []),
        // Runs are found by client, job type and brand in the UI (workflows/search-attributes.ts).
        ...LEAD_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${CLI_TYPE[key.type]}`]),
      ],
      ready: () => temporalReady(address, opts.namespace),
    },
    address,
  );
  return { ...started, uiUrl };
}

/** The CLI's names of the search attribute types the service uses. */
const CLI_TYPE: Record<string, string> = { KEYWORD: 'Keyword', KEYWORD_LIST: 'KeywordList' };

async function temporalReady(address: string, namespace: string): Promise<boolean> {
  if (!(await canConnect(Number(address.split(':')[1])))) return false;
  const connection = await Connection.connect({ address, connectTimeout: 1000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await connection.close();
  }
}

async function startTemporalDownload(
  opts: EngineOptions & { namespace: string },
  port: number,
  uiPort: number,
  dbFilename: string,
): Promise<TemporalEngine> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  opts.progress('starting the Temporal dev server through @temporalio/testing (downloads it on first use)…');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port,
      ui: true,
      uiPort,
      dbFilename,
      namespace: opts.namespace,
      searchAttributes: [...LEAD_SEARCH_ATTRIBUTES],
    },
  });
  return {
    kind: 'temporal dev server (downloaded)',
    url: `127.0.0.1:${port}`,
    uiUrl: `http://127.0.0.1:${uiPort}`,
    stop: () => env.teardown(),
  };
}
