import { Writable } from 'node:stream';
import type { FullConfig } from '@playwright/test';
import startEngines from '../../../test/support/global-setup';
import stopEngines from '../../../test/support/global-teardown';
import { startTestApi } from '../../../test/support/harness';

/**
 * The run's service: the devstack (the MongoDB-wire server, Temporal and Redis) as the Jest run starts it, and the
 * real API with its worker on a port of its own, serving the built console (`npm run test:console` builds it
 * first). Its address reaches the journeys as E2E_BASE_URL. Returns the teardown.
 */
export default async function globalSetup(_config: FullConfig) {
  await startEngines();
  const api = await startTestApi(
    {
      // The journeys sign in many times from one address within minutes.
      LOGIN_MAX_FAILURES: '1000',
      LOGIN_ADDRESS_MAX_ACCOUNTS: '1000',
      // The Temporal Web UI the service links operators to (a job's run, jobs.spec): the devstack's UI where the run
      // started one, else the address given, else the dev server's default. Maps-scrape and research jobs need no
      // other setting: with no provider URL configured the worker answers them from the sandbox provider server
      // (src/sandbox/server.ts), whose `sbx-slow-<ms>` words keep a job running long enough to cancel or pause.
      TEMPORAL_UI_URL:
        process.env.TEMPORAL_UI_URL ??
        (globalThis as { __devstack?: { temporal?: { uiUrl?: string | null } } }).__devstack?.temporal?.uiUrl ??
        'http://127.0.0.1:8233',
      // Likewise the forgotten-password requests of the sign-in journeys.
      PASSWORD_RESET_REQUESTS_PER_ADDRESS: '1000',
      // And the agents' access requests, all from this one address (10 an hour by default).
      ACCESS_REQUEST_RATE_PER_HOUR: '1000',
      // The log viewer (system.spec) reads the lines the service logged: kept in its store, written nowhere else.
      LOG_LEVEL: 'info',
    },
    { logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }) },
  );
  process.env.E2E_BASE_URL = api.url;
  // Where the run's API keeps its data, for journeys that seed what no API call makes quickly (support/leads-seed.ts
  // writes thousands of leads through the idap area's own service): its database (MONGODB_URI is the run's engine),
  // its Redis key prefix (REDIS_URL likewise) and its data directory (media files).
  process.env.E2E_MONGODB_DB = api.config.MONGODB_DB;
  process.env.E2E_REDIS_KEY_PREFIX = api.config.REDIS_KEY_PREFIX;
  process.env.E2E_DATA_DIR = api.config.dataDir;
  return async () => {
    await api.stop();
    await stopEngines();
  };
}
