import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { onPath } from '../../tools/devstack/binaries';

/**
 * Debian's chromium, which the tests' global setup installs when it is missing (CHROMIUM_PATH to use another);
 * nothing here ever downloads a browser. Host names other than localhost resolve to nothing and the browser's
 * own background traffic is off, so a page under test cannot reach past this machine.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? onPath('chromium') ?? '/usr/bin/chromium';

/** The processes whose command line names `dir` (read from /proc: Linux, as the tests' machines are). */
function processesNaming(dir: string): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir) ? [Number(entry)] : [];
    } catch {
      return []; // it ended meanwhile
    }
  });
}

/**
 * Each browser gets a configuration directory of its own: chromium's crash handlers (which detach from the
 * browser, so closing it does not always end them) name it, and closing the browser ends them by their pids,
 * so a test run leaves no process behind. It also keeps the tests out of the machine's own chromium profile.
 */
export async function launchBrowser(): Promise<Browser> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-service-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    env: { ...process.env, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home },
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
  const close = browser.close.bind(browser);
  browser.close = async () => {
    await close();
    for (const pid of processesNaming(home)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    fs.rmSync(home, { recursive: true, force: true });
  };
  return browser;
}
