import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureSystemPackages, missingNeeds, TEST_NEEDS, type SystemNeed } from '../../tools/devstack/system-packages';
import { testMachineReady } from '../../tools/devstack/prepare';

const absent: SystemNeed = {
  command: 'lead-service-no-such-tool',
  packages: ['no-such-package'],
  neededBy: 'this test',
};

describe('system packages a fresh machine lacks', () => {
  const savedPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = savedPath;
  });

  it('finds nothing missing once the machine is prepared (the global setup prepared it)', () => {
    expect(missingNeeds(TEST_NEEDS)).toEqual([]);
    expect(testMachineReady()).toBe(true);
  });

  it('without apt-get, stops with one line naming what is missing and how to install it', async () => {
    const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-apt-'));
    process.env.PATH = emptyDir; // no apt-get, no redis-server
    try {
      const err = await ensureSystemPackages([absent, TEST_NEEDS[0]], () => undefined).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toBe(
        'Missing lead-service-no-such-tool (this test), redis-server (the local cache engine): ' +
          'install with `sudo apt-get install -y no-such-package redis-server` (Debian or Ubuntu), ' +
          "or the same programs from your system's packages.",
      );
      expect(err?.message).not.toContain('\n');
    } finally {
      fs.rmSync(emptyDir, { recursive: true, force: true });
    }
  });

  it('does nothing, and runs no apt-get, when every command is present', async () => {
    const said: string[] = [];
    await ensureSystemPackages(TEST_NEEDS, (m) => said.push(m));
    expect(said).toEqual([]);
  });
});
