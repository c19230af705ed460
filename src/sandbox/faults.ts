/**
 * How a test makes the sandbox misbehave. Either put a magic word into what the request carries
 * (a maps query, a company domain), or queue faults through the control endpoint:
 *
 *   sbx-fail-429-x2   the first 2 requests carrying this word (per distinct subject) answer 429
 *   sbx-fail-500      every request carrying it answers 500 (any status: 400, 401, 404, 503...)
 *   sbx-slow-1500     answers after 1500 ms
 *   sbx-malformed     answers 200 with a body that is not in the provider's format
 */
export type Target = 'maps' | 'research';

export interface Fault {
  status?: number;
  delayMs?: number;
  malformed?: boolean;
}

export interface QueuedFault extends Fault {
  target: Target | 'any';
  times: number;
}

const FAIL = /sbx-fail-(\d{3})(?:-x(\d+))?/i;
const SLOW = /sbx-slow-(\d{1,5})/i;
const MALFORMED = /sbx-malformed/i;

/** Removes the magic words, so the generated data does not depend on them. */
export const withoutMagic = (s: string) =>
  s
    .replace(new RegExp(`${FAIL.source}|${SLOW.source}|${MALFORMED.source}`, 'gi'), '')
    .replace(/\s+/g, ' ')
    .replace(/-{2,}/g, '-')
    .trim();

export class FaultPlan {
  private readonly queue: QueuedFault[] = [];
  private readonly seen = new Map<string, number>();
  readonly stats = {
    requests: { maps: 0, research: 0 } as Record<Target, number>,
    statuses: {} as Record<string, number>,
  };

  enqueue(fault: QueuedFault): void {
    this.queue.push({ ...fault, times: Math.max(1, fault.times) });
  }

  reset(): void {
    this.queue.length = 0;
    this.seen.clear();
    this.stats.requests = { maps: 0, research: 0 };
    this.stats.statuses = {};
  }

  /** The fault, if any, for one request of `target` whose subject (query, URL) is `subject`. */
  next(target: Target, subject: string): Fault {
    this.stats.requests[target] += 1;
    const queued = this.queue.findIndex((f) => f.target === target || f.target === 'any');
    if (queued >= 0) {
      const f = this.queue[queued];
      if (--f.times <= 0) this.queue.splice(queued, 1);
      return { status: f.status, delayMs: f.delayMs, malformed: f.malformed };
    }
    const fault: Fault = {};
    const slow = SLOW.exec(subject);
    if (slow) fault.delayMs = Number(slow[1]);
    if (MALFORMED.test(subject)) fault.malformed = true;
    const fail = FAIL.exec(subject);
    if (fail) {
      const limit = fail[2] ? Number(fail[2]) : Infinity;
      const key = `${target}\u0000${subject}`;
      const count = (this.seen.get(key) ?? 0) + 1;
      this.seen.set(key, count);
      if (count <= limit) fault.status = Number(fail[1]);
    }
    return fault;
  }

  record(status: number): void {
    this.stats.statuses[status] = (this.stats.statuses[status] ?? 0) + 1;
  }
}
