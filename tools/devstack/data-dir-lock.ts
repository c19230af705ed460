import { setTimeout as sleep } from 'node:timers/promises';
import fs from 'node:fs';
import path from 'node:path';
import type { Progress } from './binaries';
import { processAlive } from './process-alive';

interface LockRecord {
  pid: number;
  started_at: string;
  engine_pids: number[];
}

/**
 * Whether a live pid is still an engine on this data directory (its command line names the directory, or it
 * works inside it, as redis-server does): after a reboot a recorded pid can belong to anything. Without /proc
 * (macOS) the recorded pid is trusted.
 */
function runsOn(pid: number, dataDir: string): boolean {
  if (!fs.existsSync('/proc/self/cmdline')) return true;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(dataDir) || fs.readlinkSync(`/proc/${pid}/cwd`).startsWith(dataDir);
  } catch {
    return false;
  }
}

async function stopLeftovers(pids: number[], dataDir: string, progress: Progress) {
  const left = pids.filter((pid) => processAlive(pid) && runsOn(pid, dataDir));
  if (!left.length) return;
  progress(`stopping ${left.length} engine process(es) left by a service that died: ${left.join(', ')}`);
  for (const pid of left) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (left.some(processAlive) && Date.now() < deadline) await sleep(100);
  for (const pid of left.filter(processAlive)) process.kill(pid, 'SIGKILL');
}

/**
 * The devstack owns its data directory: `devstack.lock` names the process running it and its engines.
 * A start that finds a live owner refuses (two FerretDBs or Temporal servers on one set of files would
 * corrupt them); one that finds a dead owner stops the engines it left, then takes the directory over.
 */
export async function lockDataDir(dataDir: string, progress: Progress) {
  const file = path.join(dataDir, 'devstack.lock');
  fs.mkdirSync(dataDir, { recursive: true });
  const record: LockRecord = { pid: process.pid, started_at: new Date().toISOString(), engine_pids: [] };
  for (;;) {
    try {
      fs.writeFileSync(file, JSON.stringify(record), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let held: LockRecord | null = null;
    try {
      held = JSON.parse(fs.readFileSync(file, 'utf8')) as LockRecord;
    } catch {
      /* unreadable: a start that died while writing it */
    }
    if (held && processAlive(held.pid)) {
      throw new Error(
        `The data directory ${dataDir} is in use by a running service (pid ${held.pid}, since ${held.started_at}); ` +
          'stop it or set another DATA_DIR',
      );
    }
    if (held) await stopLeftovers(held.engine_pids ?? [], path.resolve(dataDir), progress);
    fs.rmSync(file, { force: true });
  }
  return {
    /** Records the engines' pids, so a start after a crash can stop any that survived it. */
    engines(pids: (number | undefined)[]) {
      record.engine_pids = pids.filter((p): p is number => typeof p === 'number');
      fs.writeFileSync(file, JSON.stringify(record));
    },
    release() {
      fs.rmSync(file, { force: true });
    },
  };
}
