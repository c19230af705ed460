/**
 * Contract fuzzing (npm run test:fuzz): starts the service exactly as the tests do (devstack, real
 * engines, port 0) and runs schemathesis over every operation, once as a super_admin and once
 * as a client's credential triple. Any finding fails the run. Only loopback is ever addressed.
 *
 * Operations not built yet (test/fuzz/unbuilt-operations.txt) are fuzzed too, so their gates
 * (401, 403, 422) are checked like any other's; the one finding tolerated is their 501. Path ids
 * point at records seeded first (seed.ts), so operations on one record reach their handlers.
 *
 * FUZZ_MAX_EXAMPLES (default 12) and FUZZ_SEED set the budget; FUZZ_LOG_LEVEL (default error) the
 * service's and worker's logs; FUZZ_OPERATION_IDS (comma-separated) narrows a local run to those
 * operations; SCHEMATHESIS_BIN the tool (default: the virtualenv .ci/run installs
 * into ~/.cache/lead-service/schemathesis-venv).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import globalSetup from '../support/global-setup';
import globalTeardown from '../support/global-teardown';
import { createLogger } from '../../src/lib/logger';
import { installTemporalLogger } from '../../src/worker/create-worker';
import { createClient, startTestApi } from '../support/harness';
import { fuzzConfig } from './config';
import { seedAgents, seedRecords } from './seed';
import { agentContextOperations, seededBesideIntegerOperations, unbuiltOperations } from './unbuilt';
import { CACHE_DIR } from '../../src/lib/cache-dir';
import { loadOpenApi } from '../../src/lib/http/openapi-spec';
import { withContentKeywords } from './content-keywords';

const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'missing_required_header',
  'ignored_auth',
];

/**
 * Left out, not tolerated: each is tested in Jest. Logging out or rotating the caller's own
 * credentials would leave the rest of the run unauthenticated.
 */
const HARNESS_EXCLUDED = ['logout', 'regenerateCredentials'];

/**
 * The event stream never ends: schemathesis reads a stream until it has this many frames (or the request timeout
 * passes). With a heartbeat every STREAM_HEARTBEAT_MS each stream answer has them within a second: `connected`,
 * the job events replayed after a Last-Event-ID (the seeded jobs' events after the contract's example id) and
 * heartbeats, each validated against its frame's schema and its data against the frame's content schema.
 */
const STREAM_FRAMES_READ = 6;
const STREAM_HEARTBEAT_MS = '100';

const BIN = process.env.SCHEMATHESIS_BIN ?? path.join(CACHE_DIR, 'schemathesis-venv', 'bin', 'schemathesis');

function run(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(BIN, args, { stdio: 'inherit', env: { ...process.env, NO_COLOR: '1' } });
    child.on('exit', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(127));
  });
}

async function main() {
  if (!fs.existsSync(BIN)) {
    console.error(
      `schemathesis not found at ${BIN}: install it with\n` +
        '  python3 -m venv ~/.cache/lead-service/schemathesis-venv && ' +
        '~/.cache/lead-service/schemathesis-venv/bin/pip install schemathesis==4.32.5',
    );
    process.exit(1);
  }
  // The worker's per-activity logs would bury schemathesis's report in CI's output.
  installTemporalLogger(createLogger((process.env.FUZZ_LOG_LEVEL ?? 'error') as never));
  await globalSetup();
  // Fuzzed submissions start real jobs (up to 10,000 locations each); a small worker keeps them queued
  // durably instead of starving the API the fuzzer is timing on two cores.
  const api = await startTestApi({
    WORKER_MAX_ACTIVITIES: '2',
    WORKER_MAX_WORKFLOW_TASKS: '4',
    // Those queued jobs would soon reach the backlog bound, whose 503 is a capacity answer (declared on every
    // submit, held by test/jobs/job-backlog.test.ts), not a finding of not_a_server_error.
    JOB_MAX_UNFINISHED: '0',
    // Likewise the fuzz client's own bounds on jobs (each 429 declared on every submit, held by
    // test/jobs/job-quotas.test.ts): past them every later submit would be refused before its handler's checks.
    JOB_CLIENT_MAX_UNFINISHED: '0',
    JOB_CLIENT_PER_DAY: '0',
    JOB_CLIENT_PER_MONTH: '0',
    SSE_HEARTBEAT_MS: STREAM_HEARTBEAT_MS,
  });
  let failed = 0;
  try {
    const admin = await api.login();
    const client = await createClient(api, admin, 'Fuzz', ['fuzz.example']);
    const only = (process.env.FUZZ_OPERATION_IDS ?? '').split(',').filter(Boolean);
    const selection = only.length
      ? only.flatMap((id) => ['--include-operation-id', id])
      : HARNESS_EXCLUDED.flatMap((id) => ['--exclude-operation-id', id]);
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-report-'));
    const contract = path.join(reportDir, 'openapi.json');
    // Parsed afresh from the text the service serves (the app may have adapted its parsed copy).
    fs.writeFileSync(contract, JSON.stringify(withContentKeywords(YAML.parse(loadOpenApi().text))));
    const seeded = { ...(await seedRecords(api, client.triple)), ...(await seedAgents(api, admin, client)) };
    // The brand the agent operations act for is the seeded one, so they reach their handlers (a random
    // X-Brand-Id is a 404 before anything else; bad values are tested in Jest).
    const context = { ...seeded, 'header.X-Brand-Id': '12' };
    const callers = [
      ['super_admin', admin, { ...context, 'header.X-Selected-Client-Id': client.client_id }],
      ['client triple', client.triple, context],
    ] as const;
    for (const [who, token, parameters] of callers) {
      const configFile = path.join(reportDir, `schemathesis-${token === admin ? 'admin' : 'client'}.toml`);
      fs.writeFileSync(
        configFile,
        fuzzConfig({
          parameters,
          unbuilt: unbuiltOperations(),
          headerContext: agentContextOperations(),
          seededBesideInteger: seededBesideIntegerOperations(Object.keys(seeded)),
          streamFramesRead: STREAM_FRAMES_READ,
        }),
      );
      console.log(`\n== schemathesis as ${who} against ${api.url}`);
      const code = await run([
        '--config-file',
        configFile,
        'run',
        contract,
        '--url',
        api.url,
        '--checks',
        CHECKS.join(','),
        '-H',
        `Authorization: Bearer ${token}`,
        '-H',
        `X-Content-Domain: fuzz.example`,
        '--max-examples',
        process.env.FUZZ_MAX_EXAMPLES ?? '12',
        '--seed',
        process.env.FUZZ_SEED ?? '20261123',
        '--workers',
        '1', // Python 3.11's ast.parse is not thread-safe under hypothesis ("AST constructor recursion depth mismatch")
        '--request-timeout',
        '60',
        '--no-shrink',
        '--suppress-health-check',
        'all', // the timeout: a loaded 2-core machine is slow, not wrong
        '--phases',
        'examples,coverage,fuzzing',
        '--report',
        'junit',
        '--report-dir',
        reportDir,
        ...selection,
      ]);
      console.log(`== schemathesis as ${who}: exit ${code}`);
      if (code !== 0) failed++;
    }
  } finally {
    await api.stop();
    await globalTeardown();
  }
  console.log(`fuzz: ${2 - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

void main();
