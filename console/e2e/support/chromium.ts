import { CHROMIUM } from '../../../test/support/browser';

/** Debian's chromium (CHROMIUM_PATH for another), as every browser test of the project drives; nothing downloads one. */
export const CHROMIUM_PATH = CHROMIUM;

/**
 * Host names other than localhost resolve to nothing and the browser's own background traffic is off, so a page
 * under test reaches nothing past this machine.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
];
