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
}

const running = new Set<ManagedProcess>();
let exitHookInstalled = false;

/** A child engine process: output to a log file, a readiness probe, and a stop that always ends it. */
export class ManagedProcess {
  private child?: ChildProcess;
  private exited = false;

  constructor(readonly options: ManagedProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const { name, command, args, logFile, cwd } = this.options;
    fs.mkdirSync(path.dirname(logFile), { recursive: true });
    const out = fs.openSync(logFile, 'a');
    this.exited = false;
    this.child = spawn(command, args, { cwd, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    const child = this.child;
    child.once('exit', () => {
      this.exited = true;
      running.delete(this);
    });
    running.add(this);
    installExitHook();
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`${name} exited during start-up; see ${logFile}`);
      if (await this.options.ready().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 150));
    }
    await this.stop();
    throw new Error(`${name} did not become ready within ${(this.options.readyTimeoutMs ?? 60_000) / 1000}s; see ${logFile}`);
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || this.exited) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}

/** Engines must not outlive the process that started them, even on Ctrl-C. */
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const p of running) (p as unknown as { child?: ChildProcess }).child?.kill('SIGKILL');
  });
}
