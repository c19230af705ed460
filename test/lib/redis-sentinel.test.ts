import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../tools/devstack/ports';
import { eventually, startTestApi, type TestApi } from '../support/harness';

/** A Redis Sentinel (redis-server in sentinel mode) watching the run's Redis as the primary `leads`. */
async function startSentinel(primary: URL): Promise<{ port: number; proc: ChildProcess; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sentinel-'));
  const port = await freePort();
  const conf = path.join(dir, 'sentinel.conf');
  fs.writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor leads ${primary.hostname} ${primary.port} 1`,
    ].join('\n') + '\n',
  );
  const proc = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
  return { port, proc, dir };
}

describe('Redis through Sentinel', () => {
  let sentinel: Awaited<ReturnType<typeof startSentinel>>;
  let api: TestApi | undefined;
  afterAll(async () => {
    await api?.stop();
    if (sentinel && sentinel.proc.exitCode === null) {
      const exited = new Promise((resolve) => sentinel.proc.once('exit', resolve));
      sentinel.proc.kill();
      await exited; // no sentinel outlives the run
    }
    if (sentinel) fs.rmSync(sentinel.dir, { recursive: true, force: true });
  });

  it('finds the primary the sentinels name: the service runs with a REDIS_URL whose host does not exist', async () => {
    sentinel = await startSentinel(new URL(process.env.REDIS_URL!));
    api = await startTestApi({
      REDIS_URL: 'redis://primary-found-by-sentinel.invalid:6379',
      REDIS_SENTINELS: `127.0.0.1:${sentinel.port}`,
      REDIS_SENTINEL_NAME: 'leads',
    });
    const ready = await eventually(async () => {
      const res = await fetch(`${api!.url}/readyz`);
      return res.ok ? res : undefined;
    });
    expect(ready.status).toBe(200);
    // Redis-backed work goes through: a login (its throttle counts in Redis), and the client itself.
    expect(await api.login()).toEqual(expect.any(String));
    expect(api.rt.engines.redis.options.sentinels).toEqual([{ host: '127.0.0.1', port: sentinel.port }]);
    await api.rt.engines.redis.set('sentinel-probe', 'found', 'EX', 60);
    expect(await api.rt.engines.redis.get('sentinel-probe')).toBe('found');
  });
});
