import fs from 'node:fs';
import { onPath, run, type Progress } from './binaries';

/** A program the service or its tests run, and the Debian packages that provide it. */
export interface SystemNeed {
  /** The command looked up on PATH (or an absolute path that must exist). */
  command: string;
  packages: string[];
  /** What needs it, for the message when it cannot be installed. */
  neededBy: string;
}

export const REDIS_SERVER: SystemNeed = {
  command: 'redis-server',
  packages: ['redis-server'],
  neededBy: 'the local cache engine',
};
/** Debian's Chromium for the browser tests; nothing ever downloads a browser. */
export const CHROMIUM: SystemNeed = { command: 'chromium', packages: ['chromium'], neededBy: 'the browser tests' };
/** Java runs Temporal's time-skipping test server, and Maven fetches it once from Maven Central. */
export const JAVA: SystemNeed = {
  command: 'java',
  packages: ['default-jre-headless'],
  neededBy: 'the time-skipping workflow tests',
};
export const MAVEN: SystemNeed = {
  command: 'mvn',
  packages: ['maven'],
  neededBy: 'fetching the time-skipping test server',
};

/** A real reverse proxy in front of the test API, as the deployment has one (test/deploy/proxy-hop.test.ts). */
export const NGINX: SystemNeed = { command: 'nginx', packages: ['nginx'], neededBy: 'the reverse-proxy test' };

/** What `npm start` needs beyond Node and Go, and what `npm test` needs on top. */
export const SERVICE_NEEDS = [REDIS_SERVER];
export const TEST_NEEDS = [REDIS_SERVER, CHROMIUM, JAVA, MAVEN, NGINX];

/** invoke-rc.d and deb-systemd-invoke ask this script whether a package may start its service; 101: no. */
const POLICY_RC_D = '/usr/sbin/policy-rc.d';

const present = (need: SystemNeed) =>
  need.command.startsWith('/') ? fs.existsSync(need.command) : !!onPath(need.command);

export function missingNeeds(needs: SystemNeed[]): SystemNeed[] {
  return needs.filter((need) => !present(need));
}

/** Root with apt-get: the one case where the project installs Debian packages itself. */
export function canInstallWithApt(): boolean {
  return !!onPath('apt-get') && process.getuid?.() === 0;
}

/**
 * Installs, in one apt-get run, the Debian packages of every need whose command is missing. Without root and
 * apt it fails with one line that names what is missing and the command that installs it.
 */
export async function ensureSystemPackages(needs: SystemNeed[], progress: Progress): Promise<void> {
  const missing = missingNeeds(needs);
  if (!missing.length) return;
  const packages = [...new Set(missing.flatMap((need) => need.packages))];
  const what = missing.map((need) => `${need.command} (${need.neededBy})`).join(', ');
  if (!canInstallWithApt()) {
    throw new Error(
      `Missing ${what}: install with \`sudo apt-get install -y ${packages.join(' ')}\` (Debian or Ubuntu), ` +
        "or the same programs from your system's packages.",
    );
  }
  progress(
    `installing Debian packages ${packages.join(' ')} with apt-get for ${what} (first time only; a few minutes)…`,
  );
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const label = `apt-get install ${packages.join(' ')}`;
  await run('apt-get', ['update', '-qq'], { progress, label, env });
  // The packages' own services (a system redis on 6379, nginx's default site on port 80) are not started: the
  // devstack and the tests run their own instances, on loopback, with their own configuration.
  const holdServices = !fs.existsSync(POLICY_RC_D);
  if (holdServices)
    fs.writeFileSync(POLICY_RC_D, '#!/bin/sh\n# lead-service devstack: installing\nexit 101\n', { mode: 0o755 });
  try {
    await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { progress, label, env });
  } finally {
    if (holdServices) fs.rmSync(POLICY_RC_D, { force: true });
  }
  const still = missingNeeds(missing);
  if (still.length)
    throw new Error(
      `apt-get installed ${packages.join(' ')} but ${still.map((n) => n.command).join(', ')} is still not on PATH`,
    );
  progress(`installed ${packages.join(' ')}`);
}
