import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { TestApi } from './harness';

/**
 * A process of the service running `script` on the same database, Redis prefix, task queue and data directory as
 * `api`: node itself with tsx's loader (not the tsx CLI, which would run it in a grandchild that SIGKILL misses).
 * Resolves with what `ready` makes of a line of its output once one says it is ready; fails if it exits first.
 */
export function spawnBeside<T>(
  api: TestApi,
  script: string,
  env: Record<string, string>,
  ready: (output: string, proc: ChildProcess) => T | undefined,
): Promise<T> {
  const c = api.config;
  const proc = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      MONGODB_DB: c.MONGODB_DB,
      REDIS_KEY_PREFIX: c.REDIS_KEY_PREFIX,
      TEMPORAL_TASK_QUEUE: c.TEMPORAL_TASK_QUEUE,
      DATA_DIR: c.dataDir,
      OUTBOUND_ALLOW_PRIVATE: c.OUTBOUND_ALLOW_PRIVATE === undefined ? '' : String(c.OUTBOUND_ALLOW_PRIVATE),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    proc.stderr!.on('data', (d) => (err += d));
    proc.stdout!.on('data', (d) => {
      const answer = ready(String(d), proc);
      if (answer !== undefined) resolve(answer);
    });
    proc.on('exit', (code) => reject(new Error(`${path.basename(script)} exited with ${code}: ${err}`)));
  });
}

/**
 * A second API process on the same database, Redis prefix and task queue as `api`; with `clockAt`, its clock stands
 * still at that instant (a test's fake clock at the same instant puts both processes in the same windows).
 */
export function startSecondApi(api: TestApi, opts: { clockAt?: number } = {}): Promise<{ url: string; stop(): void }> {
  const env = { LOG_LEVEL: 'silent', ...(opts.clockAt === undefined ? {} : { TEST_CLOCK_AT: String(opts.clockAt) }) };
  return spawnBeside(api, path.join(__dirname, 'api-process.ts'), env, (output, proc) => {
    const url = /api ready (\S+)/.exec(output)?.[1];
    return url ? { url, stop: () => proc.kill('SIGKILL') } : undefined;
  });
}
