import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './support/chromium';

/**
 * The console's journeys in Debian's chromium (never a downloaded browser) against the real service and engines,
 * which the global setup starts once for the run (test/support's devstack and test API). `npm run test:console`.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  tsconfig: './tsconfig.runtime.json',
  globalSetup: './support/global-setup.ts',
  outputDir: '../../test-results/console',
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  forbidOnly: true,
  reporter: [['list'], ['./support/summary-reporter.ts']],
  use: {
    ...devices['Desktop Chrome'],
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    trace: 'retain-on-failure',
    locale: 'en-GB',
    timezoneId: 'Europe/Amsterdam',
  },
});
