import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalEngines, type LocalEngineOptions } from '../../src/lib/engines/local-engines';
import { DEFAULT_PORTS } from '../../tools/devstack';

/** The seam between the service and its development tooling (tools/devstack). */
describe('the local engines', () => {
  let dataDir: string;
  const options = (overrides: Partial<LocalEngineOptions> = {}): LocalEngineOptions => ({
    dataDir,
    cacheDir: path.join(dataDir, 'cache'),
    namespace: 'default',
    // Nothing to start: the seam, the data directory's lock and its ports, without an engine.
    need: { mongo: false, redis: false, temporal: false },
    defaultPorts: false,
    progress: () => undefined,
    ...overrides,
  });
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-engines-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('are refused in production, which names the engines to configure instead', async () => {
    await expect(startLocalEngines(options(), 'production')).rejects.toThrow(
      'NODE_ENV=production needs MONGODB_URI, REDIS_URL and TEMPORAL_ADDRESS',
    );
    // The devstack never ran: it did not take the data directory.
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  it('are the devstack elsewhere, loaded from tools/devstack, on the documented ports when asked', async () => {
    const stack = await startLocalEngines(options({ defaultPorts: true }), 'development');
    try {
      expect(fs.readFileSync(path.join(dataDir, 'devstack.lock'), 'utf8')).toContain(`"pid":${process.pid}`);
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'devstack-ports.json'), 'utf8'))).toEqual(DEFAULT_PORTS);
    } finally {
      await stack.stop();
    }
    expect(fs.existsSync(path.join(dataDir, 'devstack.lock'))).toBe(false);
  });
});
