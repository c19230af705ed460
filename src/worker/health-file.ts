import fs from 'node:fs';
import type { Worker } from '@temporalio/worker';

const TOUCH_EVERY_MS = 10_000;

/**
 * Touches `file` every 10 s while the worker is running (polling each of its task queues), so a container health check
 * can tell a live worker from one that stopped or hangs: a file older than a few intervals means it is not.
 */
export function touchWhileRunning(file: string, workers: Pick<Worker, 'getState'>[]): { stop(): void } {
  const touch = () => {
    if (workers.some((worker) => worker.getState() !== 'RUNNING')) return;
    const now = new Date();
    try {
      fs.utimesSync(file, now, now);
    } catch {
      fs.writeFileSync(file, '');
    }
  };
  touch();
  const timer = setInterval(touch, TOUCH_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
