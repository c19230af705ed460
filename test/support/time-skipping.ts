import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { TEST_SERVER_PID_FILE, temporalTestServer } from '../../tools/devstack/temporal-test-server';
import { CACHE_DIR } from '../../src/lib/cache-dir';

export interface TimeSkipping {
  env: TestWorkflowEnvironment;
  /**
   * A worker of the project's workflows (the run's bundle) with the test's stand-in activities (typed from the real
   * ones), on a queue of its own (or the one named: where a workflow starts its children).
   */
  worker(activities: Partial<Activities>, taskQueue?: string): Promise<{ worker: Worker; taskQueue: string }>;
}

/** Where this process's launched servers write their pids (the launcher appends its own, before it execs). */
const pidFile = path.join(os.tmpdir(), `lead-service-test-servers-${process.pid}`);
process.env[TEST_SERVER_PID_FILE] = pidFile;

/** Ends every server this process launched that is still running (they are the JVMs of this file's pids). */
function endLaunchedServers(): void {
  const pids = fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').split('\n').filter(Boolean) : [];
  for (const pid of pids) {
    try {
      // Still that server (a pid once ended may since name another process).
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('io.temporal.testserver.TestServer'))
        process.kill(Number(pid), 'SIGKILL');
    } catch {
      // ended already
    }
  }
  fs.rmSync(pidFile, { force: true });
}

/**
 * The SDK gives the server's JVM 5 s to listen. The launcher's class-data archive makes that 0.3 s on a
 * quiet machine; a start that a fully loaded one still delays past the limit is tried again. The SDK does not
 * end the JVM of a start it gave up on, so that one is ended here, by the pid its launcher recorded.
 */
async function startTestServer(launcher: string, attempts = 3): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: launcher } },
      });
    } catch (err) {
      endLaunchedServers();
      if (attempt >= attempts || !/did not start within/.test((err as Error).message)) throw err;
      process.stdout.write(
        `[test-server] not listening in time (attempt ${attempt} of ${attempts}); starting it again\n`,
      );
    }
  }
}

/**
 * Temporal's time-skipping test server for one test file: while a test awaits a workflow (or calls
 * `env.sleep`), the server jumps to the next timer, so a 24-hour deadline passes in milliseconds.
 * `perTest` gives every test a server of its own: time is the server's, so a run one test leaves behind (a
 * child it abandoned, a task nobody polls any more) would otherwise hold back or move the clock of the next.
 */
export function useTimeSkipping(opts: { perTest?: boolean } = {}): TimeSkipping {
  const ctx = {
    env: undefined as unknown as TestWorkflowEnvironment,
    async worker(activities: Partial<Activities>, taskQueue = `ts-${randomUUID()}`) {
      const worker = await Worker.create({
        connection: ctx.env.nativeConnection,
        taskQueue,
        activities,
        workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      });
      return { worker, taskQueue };
    },
  };
  const [before, after] = opts.perTest ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    const launcher = await temporalTestServer(CACHE_DIR, (m) => process.stdout.write(`[test-server] ${m}\n`));
    ctx.env = await startTestServer(launcher);
  }, 300_000);
  after(async () => {
    await ctx.env?.teardown();
    endLaunchedServers(); // the SDK's teardown ends its server; this ends any it did not
  });
  return ctx;
}

export const HOUR = 3_600_000;
