import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestApi } from './harness';

/** A second API process on the same database, Redis prefix and task queue as `api`. */
export function startSecondApi(api: TestApi): Promise<{ url: string; stop(): void }> {
  const c = api.config;
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'api-process.ts')], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      MONGODB_DB: c.MONGODB_DB,
      REDIS_KEY_PREFIX: c.REDIS_KEY_PREFIX,
      TEMPORAL_TASK_QUEUE: c.TEMPORAL_TASK_QUEUE,
      DATA_DIR: c.dataDir,
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    proc.stderr!.on('data', (d) => (err += d));
    proc.stdout!.on('data', (d) => {
      const url = /api ready (\S+)/.exec(String(d))?.[1];
      if (url) resolve({ url, stop: () => proc.kill('SIGKILL') });
    });
    proc.on('exit', (code) => reject(new Error(`second API exited with ${code}: ${err}`)));
  });
}
