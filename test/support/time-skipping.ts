import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporalTestServer } from '../../src/lib/devstack/temporal-test-server';

const CACHE_DIR = process.env.CACHE_DIR ?? path.join(os.homedir(), '.cache', 'lead-service');

export interface TimeSkipping {
  env: TestWorkflowEnvironment;
  /** A worker of the project's workflows (the run's bundle) with the test's stand-in activities, on a queue of its own. */
  worker(activities: object): Promise<{ worker: Worker; taskQueue: string }>;
}

/**
 * Temporal's time-skipping test server for one test file: while a test awaits a workflow (or calls
 * `env.sleep`), the server jumps to the next timer, so a 24-hour deadline passes in milliseconds.
 */
export function useTimeSkipping(): TimeSkipping {
  const ctx = {
    env: undefined as unknown as TestWorkflowEnvironment,
    async worker(activities: object) {
      const taskQueue = `ts-${randomUUID()}`;
      const worker = await Worker.create({
        connection: ctx.env.nativeConnection, taskQueue, activities,
        workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! },
      });
      return { worker, taskQueue };
    },
  };
  beforeAll(async () => {
    const launcher = await temporalTestServer(CACHE_DIR, (m) => process.stdout.write(`[test-server] ${m}\n`));
    ctx.env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: launcher } } });
  }, 300_000);
  afterAll(async () => {
    await ctx.env?.teardown();
  });
  return ctx;
}

export const HOUR = 3_600_000;
