import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import * as registered from '../../workflows';
import { historyFromJson } from './history-json';

const HISTORIES_DIR = path.join(__dirname, 'histories');
/** Each history's workflow id, written by record.ts beside them: children's ids derive from it. */
const WORKFLOW_IDS: Record<string, string> = JSON.parse(
  fs.readFileSync(path.join(HISTORIES_DIR, 'workflow-ids.json'), 'utf8'),
);
const files = Object.keys(WORKFLOW_IDS).map((name) => `${name}.json`);

/**
 * Every recorded history (test/replay/histories, written by `npm run replay:record`) replays against the workflow
 * code as it is now: a change that would make a running workflow take another path than its history says fails
 * here, before it reaches a worker with runs in flight (docs/upgrades.md says what to do then).
 */
describe('workflow histories recorded by earlier versions replay on the current code', () => {
  it('has histories to replay for every workflow the service runs', () => {
    const recorded = new Set(
      files.map(
        (f) =>
          JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, f), 'utf8')).events[0]
            .workflowExecutionStartedEventAttributes.workflowType.name as string,
      ),
    );
    expect(Object.keys(registered).filter((type) => !recorded.has(type))).toEqual([]);
  });

  it.each(files)('%s', async (file) => {
    const history = historyFromJson(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
    const workflowId = WORKFLOW_IDS[path.basename(file, '.json')];
    // Throws DeterminismViolationError (or the workflow's own failure to decode its history) when it no longer replays.
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } },
      history,
      workflowId,
    );
  });
});
