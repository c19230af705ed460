import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Fixed windows (rate limits, login lockouts: src/lib/rate-limit.ts) start again at every multiple of their length
 * since the epoch: a burst begun in a window's last moments could straddle two and never reach a limit. Time is the
 * subject there, so a burst that must fall into one window waits for the next one when less than `spareMs` of this
 * one is left (a wait only near an edge, never a fixed sleep).
 */
export async function awayFromWindowEdge(windowMs: number, spareMs: number): Promise<void> {
  const into = Date.now() % windowMs;
  if (into > windowMs - spareMs) await sleep(windowMs - into + 100);
}

/** A UTC minute's window with 15 s to spare (agents' requests per minute, keys' calls per minute). */
export const awayFromMinuteEdge = () => awayFromWindowEdge(60_000, 15_000);
