import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** What the service process holds: resident memory and open file descriptors, from /proc. */
export interface ProcessFootprint {
  rss_mb: number;
  fds: number;
}

export function footprint(pid: number): ProcessFootprint {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rss_mb: Math.round(rssKb / 102.4) / 10, fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

/**
 * The pid of the worker process a service started (`npm start`'s topology: src/worker/worker-process.ts), found
 * among its children by its entry; undefined when the worker runs in the service's own process or has not started.
 */
export function workerPidOf(pid: number): number | undefined {
  let children: string[];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
  } catch {
    return undefined;
  }
  return children.map(Number).find((child) => {
    try {
      return /[/\\]worker\.(?:ts|js)\0/.test(fs.readFileSync(`/proc/${child}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}

export interface ServiceProcess {
  pid: number;
  /** The API's base URL (…/api/v1 stripped). */
  url: string;
  /** Everything it printed, for a failure message. */
  output(): string;
  exited: Promise<number | null>;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The service as a user runs it: `src/main.ts` (API and worker in one process) in a process of its own,
 * started with node and tsx's loader so that its pid is the service itself (kill -9 reaches it, not a wrapper).
 */
export function startService(
  env: Record<string, string>,
  timeoutMs = 180_000,
  /** Node's own flags for the service (e.g. --cpu-prof for a profile written when it stops). */
  nodeArgs: string[] = [],
): Promise<ServiceProcess> {
  const proc: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', path.join(ROOT, 'src', 'main.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`the service did not start within ${timeoutMs / 1000}s:\n${out.slice(-3000)}`));
    }, timeoutMs);
    const onData = () => {
      const api = /API\s+(http:\/\/\S+)\/api\/v1/.exec(out)?.[1];
      if (!api) return;
      clearTimeout(timer);
      proc.stdout!.off('data', onData);
      resolve({
        pid: proc.pid!,
        url: api,
        exited,
        output: () => out,
        async kill9() {
          proc.kill('SIGKILL');
          await exited;
        },
        async stop() {
          if (proc.exitCode !== null || proc.signalCode) return;
          proc.kill('SIGTERM');
          const forced = setTimeout(() => proc.kill('SIGKILL'), 20_000);
          await exited;
          clearTimeout(forced);
        },
      });
    };
    proc.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} during start-up:\n${out.slice(-3000)}`));
    });
  });
}
