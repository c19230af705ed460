import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { startDevstack } from '../../tools/devstack';
import { portsForDir } from '../../tools/devstack/ports';
import { CACHE_DIR } from '../../src/lib/cache-dir';

const redisOnly = (dataDir: string) =>
  startDevstack({
    dataDir,
    cacheDir: CACHE_DIR,
    namespace: 'default',
    need: { mongo: false, redis: true, temporal: false },
    progress: () => undefined,
  });
const portOf = (url: string) => Number(new URL(url).port);

describe('ports per data directory', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'devstack-ports-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('runs two data directories side by side on their own ports, each with its own data', async () => {
    // Two directories whose names hash to different slots (1 in 1,200 random pairs share one: a CI run drew such a
    // pair; ports already held by another process are the next test's subject, not this one's).
    const a = dir();
    let b = dir();
    while (portsForDir(b).redis === portsForDir(a).redis) b = dir();
    expect(portsForDir(a)).not.toEqual(portsForDir(b));
    const [first, second] = await Promise.all([redisOnly(a), redisOnly(b)]);
    const clients = [new Redis(first.redis!.url), new Redis(second.redis!.url)];
    try {
      expect(portOf(first.redis!.url)).not.toBe(portOf(second.redis!.url));
      await clients[0].set('owner', 'a');
      await clients[1].set('owner', 'b');
      expect([await clients[0].get('owner'), await clients[1].get('owner')]).toEqual(['a', 'b']);
      await first.stop(); // stopping one leaves the other serving
      expect(await clients[1].get('owner')).toBe('b');
    } finally {
      clients.forEach((c) => c.disconnect());
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('starts a directory on its last ports, and on a free one when another process holds them', async () => {
    const d = dir();
    const first = await redisOnly(d);
    const port = portOf(first.redis!.url);
    await first.stop();
    const again = await redisOnly(d);
    expect(portOf(again.redis!.url)).toBe(port);
    await again.stop();

    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const moved = await redisOnly(d);
      expect(portOf(moved.redis!.url)).not.toBe(port);
      await moved.stop();
      expect(portsForDir(d).redis).toBe(portOf(moved.redis!.url)); // remembered for the next start
    } finally {
      squatter.close();
    }
  });
});
