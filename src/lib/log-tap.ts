import { Writable } from 'node:stream';

/** One structured log line as the log viewer stores it. */
export interface LogEntry {
  timestamp: string;
  container: string;
  level: string;
  message: string;
}

/** Where a process's log lines go once its engines are up (the admin area's log store). */
export interface LogSink {
  append(entries: LogEntry[]): Promise<void>;
}

const PINO_LEVELS: Record<number, string> = {
  10: 'debug',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'error',
};
/** Fields every line has that say nothing about the event itself. */
const ENVELOPE = new Set(['time', 'level', 'pid', 'hostname', 'service', 'msg', 'container']);
const MAX_MESSAGE = 4000;
const MAX_PENDING = 2000;
const FLUSH_MS = 250;

/** A pino line (already redacted by pino) as a log entry: its message followed by its other fields. */
export function entryOf(line: string, container: string): LogEntry | null {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  const rest = Object.fromEntries(Object.entries(o).filter(([k]) => !ENVELOPE.has(k)));
  const fields = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
  const time = typeof o.time === 'string' || typeof o.time === 'number' ? new Date(o.time) : new Date();
  return {
    timestamp: (Number.isNaN(time.getTime()) ? new Date() : time).toISOString(),
    container: typeof o.container === 'string' ? o.container : container,
    level: PINO_LEVELS[Number(o.level)] ?? 'info',
    message: `${typeof o.msg === 'string' ? o.msg : ''}${fields}`.trim().slice(0, MAX_MESSAGE),
  };
}

/**
 * A second destination of the process's logger: it keeps what the logger writes (bounded, oldest
 * dropped first) until a sink is attached, then hands the lines to it in batches. A sink that fails
 * loses those lines (the logs still reach stdout); it never blocks or breaks logging.
 */
export class LogTap extends Writable {
  private pending: LogEntry[] = [];
  private sink: LogSink | null = null;
  private container = 'api';
  private timer: NodeJS.Timeout | null = null;
  private partial = '';

  attach(sink: LogSink, container: string): void {
    this.sink = sink;
    this.container = container;
    this.pending = this.pending.map((e) => ({ ...e, container: e.container === 'pending' ? container : e.container }));
    this.schedule();
  }

  /** Stops forwarding (the engines are closing) after handing over what is pending. */
  async detach(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
    this.sink = null;
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    const text = this.partial + String(chunk);
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      const entry = line && entryOf(line, this.sink ? this.container : 'pending');
      if (entry) this.pending.push(entry);
    }
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
    this.schedule();
    done();
  }

  private schedule(): void {
    if (this.timer || !this.sink || !this.pending.length) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, FLUSH_MS);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    if (!this.sink || !this.pending.length) return;
    const batch = this.pending;
    this.pending = [];
    await this.sink.append(batch).catch(() => undefined);
    this.schedule();
  }
}
