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
  const api = await startTestApi({
    // The journeys sign in many times from one address within minutes.
    LOGIN_MAX_FAILURES: '1000',
    LOGIN_ADDRESS_MAX_ACCOUNTS: '1000',
    PASSWORD_RESET_REQUESTS_PER_ADDRESS: '1000',
  });
  process.env.E2E_BASE_URL = api.url;
  return async () => {
    await api.stop();
    await stopEngines();
  };
}
