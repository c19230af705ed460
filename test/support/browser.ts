import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * Debian's chromium (CHROMIUM_PATH to use another); nothing here ever downloads a browser. Host names other
 * than localhost resolve to nothing, so a page under test cannot reach past this machine.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'] });
}
