/**
 * `npm run replay:record [-- <file name>...]`: runs every scenario of scenarios.ts once on Temporal's
 * time-skipping test server, with the workflows as they are in this working tree, and writes each run's history
 * to test/replay/histories/<name>.json (only the named ones when names are given). The replay test
 * (replay.test.ts) then replays them against the workflow code of every later change.
 *
 * Recorded without the service's payload codec (the test server's client has none), so the histories are plain
 * JSON that replays in any clone, without CREDENTIALS_KEY; the stand-in activities' answers hold no secret.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { CACHE_DIR } from '../../src/lib/cache-dir';
import { temporalTestServer } from '../../tools/devstack/temporal-test-server';
import { bundleWorkflows } from '../../src/worker/create-worker';
import { workflowSpanSinks } from '../../src/lib/engines/temporal-interceptors';
import { historyToJson } from './history-json';
import { SCENARIOS } from './scenarios';

export const HISTORIES_DIR = path.join(__dirname, 'histories');
/** Each history's workflow id, by file name: a replay runs under the recorded id (children's ids derive from it). */
export const WORKFLOW_IDS_FILE = path.join(HISTORIES_DIR, 'workflow-ids.json');

const readIds = (): Record<string, string> =>
  fs.existsSync(WORKFLOW_IDS_FILE) ? JSON.parse(fs.readFileSync(WORKFLOW_IDS_FILE, 'utf8')) : {};

async function main(only: string[]): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const log = (m: string) => process.stdout.write(`${m}\n`);
  const launcher = await temporalTestServer(CACHE_DIR, log);
  const workflowBundle = await bundleWorkflows();
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  const written: string[] = [];
  const ids = readIds();
  for (const scenario of SCENARIOS) {
    // A server per scenario: a run left waiting for a worker would hold back the time-skipping clock of the next.
    const env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: launcher } },
    });
    try {
      const taskQueue = `record-${randomUUID()}`;
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        activities: scenario.activities,
        workflowBundle,
        sinks: workflowSpanSinks(), // the bundled tracing interceptor's (spans dropped: no tracing here)
      });
      const runs = await worker.runUntil(async () => {
        const started = await scenario.run({ env, client: env.client, taskQueue });
        // Children run on after their parent: each history is kept once its run has closed.
        for (const id of Object.values(started))
          await env.client.workflow
            .getHandle(id)
            .result()
            .catch(() => null);
        return started;
      });
      for (const [name, workflowId] of Object.entries(runs)) {
        if (only.length && !only.includes(name)) continue;
        const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
        const json = JSON.stringify(historyToJson(history), null, 2);
        fs.writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), `${json}\n`);
        ids[name] = workflowId;
        written.push(name);
      }
      log(`recorded: ${scenario.name}`);
    } finally {
      await env.teardown();
    }
  }
  const sorted = Object.fromEntries(Object.entries(ids).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(WORKFLOW_IDS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  const missing = only.filter((name) => !written.includes(name));
  if (missing.length) throw new Error(`no scenario records ${missing.join(', ')}`);
  log(`${written.length} histories written to ${path.relative(process.cwd(), HISTORIES_DIR)}`);
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
