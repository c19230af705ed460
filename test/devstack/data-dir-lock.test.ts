import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevstack } from '../../tools/devstack';
import { CACHE_DIR } from '../../src/lib/cache-dir';
import { processAlive } from '../../tools/devstack/process-alive';

const sleeper = (cwd?: string) => spawn('sleep', ['60'], { stdio: 'ignore', cwd });
const exited = (proc: ReturnType<typeof sleeper>) =>
  new Promise((r) => (proc.exitCode !== null || proc.signalCode ? r(null) : proc.once('exit', r)));

describe('the devstack owns its data directory', () => {
  let dataDir: string;
  const start = (log: string[] = []) =>
    startDevstack({
      dataDir,
      cacheDir: CACHE_DIR,
      namespace: 'default',
      need: { mongo: false, redis: true, temporal: false },
      progress: (m) => void log.push(m),
    });
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'devstack-lock-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('refuses a second start while a live service holds it, and lets the next one in after a stop', async () => {
    const first = await start();
    await expect(start()).rejects.toThrow(`is in use by a running service (pid ${process.pid}`);
    await first.stop();
    const owner = sleeper(); // another live process holding the lock is refused too
    fs.writeFileSync(
      path.join(dataDir, 'devstack.lock'),
      JSON.stringify({ pid: owner.pid, started_at: 'then', engine_pids: [] }),
    );
    try {
      await expect(start()).rejects.toThrow(`is in use by a running service (pid ${owner.pid}`);
    } finally {
      owner.kill('SIGKILL');
    }
    await exited(owner);
    const again = await start();
    await again.stop();
    expect(fs.existsSync(path.join(dataDir, 'devstack.lock'))).toBe(false);
  });

  it('stops the engines a dead service left behind before starting its own, and says so', async () => {
    const deadOwner = sleeper();
    deadOwner.kill('SIGKILL');
    await exited(deadOwner);
    const leftover = sleeper(dataDir); // stands in for an engine that outlived its service (it runs in the directory)
    const stranger = sleeper(); // a recorded pid that now belongs to something else: left alone
    fs.writeFileSync(
      path.join(dataDir, 'devstack.lock'),
      JSON.stringify({ pid: deadOwner.pid, started_at: 'then', engine_pids: [leftover.pid, stranger.pid] }),
    );
    const log: string[] = [];
    const stack = await start(log);
    try {
      await exited(leftover);
      expect(processAlive(leftover.pid!)).toBe(false);
      // the stranger not named
      expect(log.join('\n')).toMatch(new RegExp(`left by a service that died: ${leftover.pid}$`, 'm'));
      expect(processAlive(stranger.pid!)).toBe(true);
      const lock = JSON.parse(fs.readFileSync(path.join(dataDir, 'devstack.lock'), 'utf8'));
      expect(lock).toMatchObject({ pid: process.pid, engine_pids: [expect.any(Number)] });
    } finally {
      stranger.kill('SIGKILL');
      await stack.stop();
    }
  });
});
