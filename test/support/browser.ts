import puppeteer, { type Browser } from 'puppeteer-core';
import { onPath } from '../../src/lib/devstack/binaries';

/**
 * Debian's chromium, which the tests' global setup installs when it is missing (CHROMIUM_PATH to use another);
 * nothing here ever downloads a browser. Host names other than localhost resolve to nothing and the browser's
 * own background traffic is off, so a page under test cannot reach past this machine.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? onPath('chromium') ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    ],
  });
}
