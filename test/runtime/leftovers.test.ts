import { spawn } from 'node:child_process';
import { RUN_MARKER, runProcesses } from '../support/leftovers';

describe("the global teardown's search for processes a run left behind", () => {
  it("finds what carries the run's marker, by pid, and not the process that looks nor its ancestors", async () => {
    const run = `probe-${process.pid}`;
    const child = spawn('sleep', ['60'], { env: { ...process.env, [RUN_MARKER]: run }, stdio: 'ignore' });
    const other = spawn('sleep', ['60'], { env: { ...process.env, [RUN_MARKER]: 'another-run' }, stdio: 'ignore' });
    const spawned = Promise.all([child, other].map((p) => new Promise((resolve) => p.once('spawn', resolve))));
    try {
      await spawned;
      expect(runProcesses(run)).toEqual([{ pid: child.pid, command: 'sleep 60' }]);
      expect(runProcesses(process.env[RUN_MARKER]!).map((p) => p.pid)).not.toContain(process.pid);
    } finally {
      for (const proc of [child, other]) {
        const exited = new Promise((resolve) => proc.once('exit', resolve));
        proc.kill('SIGKILL');
        await exited;
      }
    }
  });
});
