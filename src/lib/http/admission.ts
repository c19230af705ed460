import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors';
import { httpRequestsInFlight, httpRequestsShed } from '../metrics';

export interface AdmissionLimits {
  /** Requests in progress at once; past it a new one is refused (0: no bound). */
  maxConcurrent: number;
  /** Longest event-loop stall within the last sample above which new requests are refused (0: not watched). */
  maxEventLoopDelayMs: number;
  /** What a refusal's Retry-After says. */
  retryAfterSeconds: number;
}

/**
 * Probes that answer whatever the load: an orchestrator that saw them refused would restart a process that is only
 * busy, and an operator would lose the one view of it.
 */
const ALWAYS_ADMITTED = /^\/(?:healthz|readyz|api\/v1\/system\/health)\/?(?:\?|$)/;
/** How often the event-loop delay is read (under-pressure's sample interval). */
const SAMPLE_MS = 500;
const RELEASE = Symbol('admission release');

/**
 * The HTTP edge's bound on work in progress, after @fastify/under-pressure's pattern: a request is admitted or
 * refused when it arrives, before anything reads its body or an engine, so past capacity the service answers at
 * once (503 with Retry-After) instead of queueing without bound, and nothing refused was recorded. An admitted
 * request holds its slot until its answer ends or its client goes; an event stream gives its slot back as soon as
 * it is open (`admitted`), so held streams never starve new requests and are never cut by this gate.
 */
export function admission(limits: AdmissionLimits): RequestHandler {
  let inFlight = 0;
  let loopDelayMs = 0;
  const histogram = limits.maxEventLoopDelayMs > 0 ? monitorEventLoopDelay({ resolution: 10 }) : null;
  histogram?.enable();
  if (histogram) {
    let sampledAt = performance.now();
    setInterval(() => {
      // The longest stall, not the mean: one stall of seconds among fifty 10 ms ticks would vanish in a mean. The
      // monitor counts its own resolution in its samples (a loop never late reads ~10 ms), and its sample of a stall
      // may land after this read; this timer's own lateness sees the stall at once.
      const now = performance.now();
      const late = now - sampledAt - SAMPLE_MS;
      sampledAt = now;
      loopDelayMs = Math.max(0, histogram.max / 1e6 - 10, late);
      histogram.reset();
    }, SAMPLE_MS).unref();
  }
  const collect = () => httpRequestsInFlight.set(inFlight);

  // One error of each kind, made once: under overload there are thousands of refusals a second, and an Error's
  // stack trace was the costliest part of one (a CPU profile of the soak).
  const refusals = {
    concurrency: AppError.overloaded(
      `Service busy (${limits.maxConcurrent} requests are in progress); retry later`,
      limits.retryAfterSeconds,
    ),
    event_loop_delay: AppError.overloaded(
      `Service busy (the event loop stalled for over ${limits.maxEventLoopDelayMs} ms); retry later`,
      limits.retryAfterSeconds,
    ),
  };
  const refusal = (reason: keyof typeof refusals) => {
    httpRequestsShed.inc({ reason });
    return refusals[reason];
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if (ALWAYS_ADMITTED.test(req.originalUrl)) return next();
    if (limits.maxConcurrent > 0 && inFlight >= limits.maxConcurrent) return next(refusal('concurrency'));
    if (histogram && loopDelayMs > limits.maxEventLoopDelayMs) return next(refusal('event_loop_delay'));
    inFlight += 1;
    collect();
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      inFlight -= 1;
      collect();
    };
    (res as unknown as Record<symbol, () => void>)[RELEASE] = release;
    res.once('finish', release);
    res.once('close', release);
    next();
  };
}

/** Gives back the slot of a request whose answer stays open (an event stream, once its headers are sent). */
export function admitted(res: Response): void {
  (res as unknown as Record<symbol, (() => void) | undefined>)[RELEASE]?.();
}
