import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Devstack } from '../../tools/devstack';
import { RUN_MARKER, runProcesses } from './leftovers';

/**
 * Stops the run's engines, then makes sure the run leaves no process behind: anything it started that is still
 * running a few seconds on (each spawner ends its own; this names the ones that did not, so they get fixed) is
 * ended by pid.
 */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __devstack?: Devstack }).__devstack?.stop();
  if (process.env.TEST_DATA_DIR) fs.rmSync(process.env.TEST_DATA_DIR, { recursive: true, force: true });
  const run = process.env[RUN_MARKER];
  if (!run) return;
  let left = runProcesses(run);
  for (let waited = 0; left.length && waited < 5_000; waited += 250) {
    await sleep(250); // processes on their way out (a reaper ending its engines, a browser's helpers)
    left = runProcesses(run);
  }
  for (const { pid, command } of left) {
    process.stdout.write(`[teardown] ending a process the run left running: ${pid} ${command.slice(0, 160)}\n`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
}
