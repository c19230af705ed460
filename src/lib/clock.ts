/**
 * Where the service reads the time where time decides something (limits and their windows, leases, sync's settle
 * time, watch cadence). Passed through the modules' deps (src/infra.ts holds the process's one), so a test can run
 * the API on a clock it moves itself instead of waiting for real minutes; production passes the system clock.
 * Workflows keep Temporal's deterministic time and timers run on real time: only readings go through here.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  date(): Date;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  date: () => new Date(),
};
