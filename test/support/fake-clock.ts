import type { Clock } from '../../src/lib/clock';

/** A clock a test moves itself (src/lib/clock.ts): it stands still until told, so a window's edge comes when asked. */
export interface FakeClock extends Clock {
  /** Moves the clock to `ms` since the epoch. */
  set(ms: number): void;
  advance(ms: number): void;
  /** Moves the clock to the start of the next window of `windowMs` (the next UTC minute for 60 000). */
  toNextWindow(windowMs: number): void;
}

/** A fake clock that stands at `startMs` (the real time by default). */
export function fakeClock(startMs = Date.now()): FakeClock {
  let now = startMs;
  return {
    now: () => now,
    date: () => new Date(now),
    set(ms) {
      now = ms;
    },
    advance(ms) {
      now += ms;
    },
    toNextWindow(windowMs) {
      now = (Math.floor(now / windowMs) + 1) * windowMs;
    },
  };
}
