import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors';
import { httpBodiesArriving, httpRequestsInFlight, httpRequestsShed } from '../metrics';
import { clientAddress } from './client-address';
import { hasBody } from './operations';

export interface AdmissionLimits {
  /** Requests in progress at once; past it a new one is refused (0: no bound, and no shares of it). */
  maxConcurrent: number;
  /** Longest event-loop stall within the last sample above which new requests are refused (0: not watched). */
  maxEventLoopDelayMs: number;
  /** Requests of one address whose bodies may be arriving at once (0: no bound). */
  maxBodiesArrivingPerAddress: number;
  /** What a refusal's Retry-After says. */
  retryAfterSeconds: number;
}

/** The gate's two stages: at a request's arrival, and around the reading of its body. */
export interface AdmissionGate {
  /** Admits a request or refuses it (503), before anything else is done for it. */
  admit: RequestHandler;
  /**
   * `parse` (a body parser) run with the request's slot given back while its body is still arriving, and a slot
   * taken again once it has arrived (503 then if none is free: nothing was done yet that a refusal would undo).
   */
  whileBodyArrives(parse: RequestHandler): RequestHandler;
}

/** What an admitted request holds at the gate, and whose share it counts against. */
interface Ticket {
  address: string;
  holdsSlot: boolean;
  bodyArriving: boolean;
  /** Its answer ended or its client went: it holds nothing and takes nothing again. */
  settled: boolean;
  /** Gives its slot back (an event stream, once open). */
  release(): void;
}

/**
 * Probes that answer whatever the load: an orchestrator that saw them refused would restart a process that is only
 * busy, and an operator would lose the one view of it.
 */
const ALWAYS_ADMITTED = /^\/(?:healthz|readyz|api\/v1\/system\/health)\/?(?:\?|$)/;
/** How often the event-loop delay is read (under-pressure's sample interval). */
const SAMPLE_MS = 500;
const TICKET = Symbol('admission ticket');

const ticketOf = (res: Response) => (res as unknown as Record<symbol, Ticket | undefined>)[TICKET];

/** Adds `by` to `key`'s count, and forgets a key whose count is 0 (the map's size is the number of keys counted). */
function addTo(counts: Map<string, number>, key: string, by: number): void {
  const count = (counts.get(key) ?? 0) + by;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

/**
 * The HTTP edge's bound on work in progress, after @fastify/under-pressure's pattern: a request is admitted or
 * refused when it arrives, before anything reads its body or an engine, so past capacity the service answers at
 * once (503 with Retry-After) instead of queueing without bound, and nothing refused was recorded. An admitted
 * request holds its slot until its answer ends or its client goes, except while its body is still arriving
 * (`whileBodyArrives`: a slow or stalled sender holds no slot) and once it is an open event stream (`admitted`: held
 * streams never starve new requests and are never cut by this gate).
 *
 * Each address (clientAddress: an IPv4 address, an IPv6 /64) gets its share (docs/security.md, "Addresses"): an
 * address that holds no slot is admitted while the bound has room, and beyond it into a small reserve (1/16 of the
 * bound, the headroom), so a second caller always finds room even while one address holds everything; an address
 * that holds slots takes one more only within the bound, and only while that leaves every other busy address its
 * headroom to grow, or it stays within its max-min fair share of the bound (each other address's demand counted as
 * what it holds plus its headroom). One address alone (a load test from one machine, every caller behind a proxy
 * TRUST_PROXY does not name) so still gets the whole bound, and an address is never held back for another that does
 * not use its share (an earlier rule, an even split of the bound's last quarter, refused the soak's quiet tenants
 * beside a noisy one that held one slot). The bodies of one address arriving at once are bounded too
 * (`maxBodiesArrivingPerAddress`): each holds a socket and a buffer.
 */
export function admission(limits: AdmissionLimits): AdmissionGate {
  const capacity = limits.maxConcurrent;
  /** Slots beyond the bound for an address holding none, and the room each other busy address keeps to grow. */
  const headroom = Math.ceil(capacity / 16);
  let inFlight = 0;
  let bodiesArriving = 0;
  /** The addresses holding slots, and how many each holds. */
  const slotsOf = new Map<string, number>();
  /** The addresses with bodies arriving, and how many. */
  const bodiesOf = new Map<string, number>();

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

  // One error of each kind, made once: under overload there are thousands of refusals a second, and an Error's
  // stack trace was the costliest part of one (a CPU profile of the soak).
  const refusals = {
    concurrency: AppError.overloaded(
      `Service busy (${capacity} requests are in progress); retry later`,
      limits.retryAfterSeconds,
    ),
    event_loop_delay: AppError.overloaded(
      `Service busy (the event loop stalled for over ${limits.maxEventLoopDelayMs} ms); retry later`,
      limits.retryAfterSeconds,
    ),
    address_share: AppError.overloaded(
      `Service busy (this address holds its share of the ${capacity} requests in progress); retry later`,
      limits.retryAfterSeconds,
    ),
    address_bodies: AppError.overloaded(
      `Service busy (${limits.maxBodiesArrivingPerAddress} requests from this address are still sending their ` +
        'bodies); retry later',
      limits.retryAfterSeconds,
    ),
  };
  const refusal = (reason: keyof typeof refusals) => {
    httpRequestsShed.inc({ reason });
    return refusals[reason];
  };

  /** Why a request of `address` may not take a slot now; null when it may. */
  const refusalFor = (address: string): keyof typeof refusals | null => {
    if (capacity > 0) {
      const held = slotsOf.get(address) ?? 0;
      if (held === 0 ? inFlight >= capacity + headroom : inFlight >= capacity) return 'concurrency';
      if (held > 0 && !withinShare(address, held)) return 'address_share';
    }
    if (histogram && loopDelayMs > limits.maxEventLoopDelayMs) return 'event_loop_delay';
    return null;
  };

  /**
   * Whether an address holding `held` slots may take one more: what it would then hold, beside what every other busy
   * address holds plus its headroom, fits in the bound; or else it stays within its max-min fair share of the bound
   * among those demands (fairShare). Only when they do not all fit is the share computed.
   */
  const withinShare = (address: string, held: number): boolean => {
    const others = slotsOf.size - 1;
    if (inFlight + 1 + others * headroom <= capacity) return true;
    const demands = [held + 1];
    for (const [other, holds] of slotsOf) if (other !== address) demands.push(holds + headroom);
    return held + 1 <= fairShare(demands, capacity);
  };

  const take = (ticket: Ticket) => {
    ticket.holdsSlot = true;
    inFlight += 1;
    addTo(slotsOf, ticket.address, 1);
    httpRequestsInFlight.set(inFlight);
  };
  const give = (ticket: Ticket) => {
    if (!ticket.holdsSlot) return;
    ticket.holdsSlot = false;
    inFlight -= 1;
    addTo(slotsOf, ticket.address, -1);
    httpRequestsInFlight.set(inFlight);
  };
  const bodyArrives = (ticket: Ticket, arriving: boolean) => {
    if (ticket.bodyArriving === arriving) return;
    ticket.bodyArriving = arriving;
    const by = arriving ? 1 : -1;
    bodiesArriving += by;
    addTo(bodiesOf, ticket.address, by);
    httpBodiesArriving.set(bodiesArriving);
  };

  const admit: RequestHandler = (req, res, next) => {
    if (ALWAYS_ADMITTED.test(req.originalUrl)) return next();
    const address = clientAddress(req);
    const refused = refusalFor(address);
    if (refused) return next(refusal(refused));
    const ticket: Ticket = {
      address,
      holdsSlot: false,
      bodyArriving: false,
      settled: false,
      release: () => give(ticket),
    };
    take(ticket);
    (res as unknown as Record<symbol, Ticket>)[TICKET] = ticket;
    const settle = () => {
      ticket.settled = true;
      give(ticket);
      bodyArrives(ticket, false);
    };
    res.once('finish', settle);
    res.once('close', settle);
    next();
  };

  const whileBodyArrives =
    (parse: RequestHandler): RequestHandler =>
    (req: Request, res: Response, next: NextFunction) => {
      const ticket = ticketOf(res);
      // Nothing to wait for: no body, or all of it here already (a small body comes with its head).
      if (!ticket || req.complete || !hasBody(req)) return parse(req, res, next);
      const perAddress = limits.maxBodiesArrivingPerAddress;
      if (perAddress > 0 && (bodiesOf.get(ticket.address) ?? 0) >= perAddress) return next(refusal('address_bodies'));
      give(ticket);
      bodyArrives(ticket, true);
      return parse(req, res, (err?: unknown) => {
        bodyArrives(ticket, false);
        // An answer that ended meanwhile (408 past the request deadline) or a client gone: nobody to answer.
        if (ticket.settled) return;
        if (err) return next(err);
        const refused = refusalFor(ticket.address);
        if (refused) return next(refusal(refused));
        take(ticket);
        next();
      });
    };

  return { admit, whileBodyArrives };
}

/**
 * The max-min fair share of `capacity` among `demands` (water-filling): the largest s such that every demand met up to s
 * fits, Σ min(demand, s) ≤ capacity; Infinity when all of them fit. A demand under the share is met whole, and what it
 * leaves is shared evenly by the larger ones, so no demand gets less than it would by an even split.
 */
export function fairShare(demands: number[], capacity: number): number {
  const ascending = [...demands].sort((a, b) => a - b);
  let left = capacity;
  for (let i = 0; i < ascending.length; i++) {
    const even = left / (ascending.length - i);
    if (ascending[i] >= even) return even;
    left -= ascending[i];
  }
  return Infinity;
}

/** Gives back the slot of a request whose answer stays open (an event stream, once its headers are sent). */
export function admitted(res: Response): void {
  ticketOf(res)?.release();
}
