import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface ManagedProcessOptions {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  /** Resolves true once the process serves requests. */
  ready: () => Promise<boolean>;
  readyTimeoutMs?: number;
  cwd?: string;
  /** The process's environment (default: this one's). */
  env?: NodeJS.ProcessEnv;
  /** Called when the process exits after it became ready, unless stop() ended it. */
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

const running = new Set<ManagedProcess>();
let exitHookInstalled = false;

/**
 * A child process of the service (an engine, the worker): output to a log file, a readiness probe, and a stop that
 * always ends it; the reaper ends it when this process dies.
 */
export class ManagedProcess {
  private child?: ChildProcess;
  private exited = false;
  private ready = false;
  private stopping = false;

  constructor(readonly options: ManagedProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const { name, command, args, logFile, cwd, env, onExit } = this.options;
    fs.mkdirSync(path.dirname(logFile), { recursive: true });
    const out = fs.openSync(logFile, 'a');
    this.exited = false;
    this.ready = false;
    this.stopping = false;
    this.child = spawn(command, args, { cwd, stdio: ['ignore', out, out], env });
    fs.closeSync(out);
    const child = this.child;
    running.add(this);
    installExitHook();
    const watcher = reaper();
    watcher.watch(child.pid!);
    child.once('exit', (code, signal) => {
      this.exited = true;
      running.delete(this);
      watcher.release(child.pid!);
      // The last engine gone: the reaper has nothing left to end, so it ends too (a later start makes another).
      if (!running.size) endReaper();
      if (this.ready && !this.stopping) onExit?.(code, signal);
    });
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`${name} exited during start-up; see ${logFile}`);
      if (await this.options.ready().catch(() => false)) {
        this.ready = true;
        return;
      }
      await sleep(150);
    }
    await this.stop();
    throw new Error(
      `${name} did not become ready within ${(this.options.readyTimeoutMs ?? 60_000) / 1000}s; see ${logFile}`,
    );
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || this.exited) return;
    this.stopping = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * A small process that outlives this one only to end its engines: it holds the read end of a pipe
 * whose write end is this process, learns each engine's pid over it, and when the pipe closes (this
 * process exited, even by kill -9, or its last engine stopped) it sends those still running SIGTERM,
 * SIGKILL after 3 s, and exits as soon as none is left: it never outstays the engines it watches.
 */
const REAPER = `
const pids = new Set(); let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\\n')) >= 0; buf = buf.slice(i + 1)) {
    const line = buf.slice(0, i);
    if (line[0] === '+') pids.add(Number(line.slice(1))); else pids.delete(Number(line.slice(1)));
  }
});
process.stdin.on('end', () => {
  const alive = (p) => { try { process.kill(p, 0); return true; } catch { return false; } };
  const signal = (s) => { for (const p of pids) { try { process.kill(p, s); } catch {} } };
  signal('SIGTERM');
  const started = Date.now();
  const check = () => {
    for (const p of pids) if (!alive(p)) pids.delete(p);
    if (!pids.size) process.exit(0);
    if (Date.now() - started > 3000) { signal('SIGKILL'); process.exit(0); }
    setTimeout(check, 50);
  };
  check();
});`;

let reaperProcess: { watch(pid: number): void; release(pid: number): void; end(): void } | undefined;

function reaper() {
  if (!reaperProcess) {
    const proc = spawn(process.execPath, ['-e', REAPER], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    proc.unref();
    proc.stdin!.on('error', () => undefined); // the reaper gone: nothing left to tell it
    (proc.stdin as unknown as { unref(): void }).unref(); // the pipe must not keep this process alive
    const send = (line: string) => void proc.stdin!.write(`${line}\n`);
    reaperProcess = {
      watch: (pid) => send(`+${pid}`),
      release: (pid) => send(`-${pid}`),
      end: () => proc.stdin!.end(),
    };
  }
  return reaperProcess;
}

function endReaper() {
  reaperProcess?.end();
  reaperProcess = undefined;
}

/** Engines must not outlive the process that started them, even on Ctrl-C. */
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const p of running) (p as unknown as { child?: ChildProcess }).child?.kill('SIGKILL');
  });
}
