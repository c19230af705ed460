import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { redisLease } from '../lib/lease';
import type { LogEntry, LogSink } from '../lib/log-tap';

/** The devstack's engine log files (tools/devstack/engines.ts) and the container name each is shown under. */
const ENGINE_FILES = { 'mongo.log': 'mongo', 'redis.log': 'redis', 'temporal.log': 'temporal' } as const;
const READ_MAX = 256 * 1024;
const FIRST_READ_BACK = 64 * 1024;
const LEASE_MS = 5_000;

/** The level a line of an engine's own format states (JSON `level`, a word, Redis' `#` for warnings), else info. */
export function engineLevel(line: string): string {
  const json =
    /"(?:level|L)"\s*:\s*"(\w+)"/i.exec(line)?.[1] ?? /\b(DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL|PANIC)\b/.exec(line)?.[1];
  const word = json?.toLowerCase();
  if (word)
    return word.startsWith('warn')
      ? 'warn'
      : ['fatal', 'panic', 'dpanic', 'error'].includes(word)
        ? 'error'
        : word === 'debug'
          ? 'debug'
          : 'info';
  if (/^\d+:[A-Z] .{20,30} # /.test(line)) return 'warn';
  return 'info';
}

/**
 * Follows the engines' log files into the log store: every second, the lines appended since the last
 * read (the offset per file is kept in Redis, so a restarted process neither repeats nor skips lines;
 * a file that shrank was replaced and is read from its start). Only one process follows a directory at
 * a time (a Redis lease), so API instances sharing one do not store a line twice. A line's timestamp is
 * the time it was collected.
 */
export function followEngineLogs(deps: { redis: Redis; sink: LogSink; dir: string; intervalMs?: number }) {
  // Taken or renewed on each tick in one script, so a lease that lapsed between a read and a renewal is never
  // extended for a holder that no longer has it.
  const lease = redisLease(deps.redis, `logs:engine-follower:${deps.dir}`, LEASE_MS);
  const offsetKey = (file: string) => `logs:engine-offset:${path.join(deps.dir, file)}`;

  async function readFile(file: keyof typeof ENGINE_FILES): Promise<void> {
    const full = path.join(deps.dir, file);
    let size: number;
    try {
      size = (await fs.promises.stat(full)).size;
    } catch {
      return; // this engine is not run by the devstack here
    }
    const stored = await deps.redis.get(offsetKey(file));
    let offset = stored === null ? Math.max(0, size - FIRST_READ_BACK) : Number(stored);
    if (offset > size) offset = 0;
    if (offset === size) return;
    const length = Math.min(READ_MAX, size - offset);
    const handle = await fs.promises.open(full, 'r');
    let text: string;
    try {
      const buf = Buffer.alloc(length);
      await handle.read(buf, 0, length, offset);
      text = buf.toString('utf8');
    } finally {
      await handle.close();
    }
    // Only whole lines; a partial last line is read next time. A first read starts after a line break.
    const lastBreak = text.lastIndexOf('\n');
    if (lastBreak < 0) return;
    const firstBreak = stored === null && offset > 0 ? text.indexOf('\n') + 1 : 0;
    const now = new Date().toISOString();
    const entries: LogEntry[] = text
      .slice(firstBreak, lastBreak)
      .split('\n')
      .filter((l) => l.trim())
      .map((line) => ({
        timestamp: now,
        container: ENGINE_FILES[file],
        level: engineLevel(line),
        message: line.slice(0, 4000),
      }));
    await deps.sink.append(entries);
    await deps.redis.set(offsetKey(file), String(offset + Buffer.byteLength(text.slice(0, lastBreak + 1))));
  }

  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      if (!(await lease.hold())) return;
      for (const file of Object.keys(ENGINE_FILES) as (keyof typeof ENGINE_FILES)[]) await readFile(file);
    })().catch(() => undefined); // Redis down or a file gone: try again next tick
  };
  tick();
  const timer = setInterval(tick, deps.intervalMs ?? 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await lease.release();
    },
  };
}
