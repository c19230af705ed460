import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger';
import { httpRequestDuration } from '../metrics';
import { requestContext } from '../request-context';
import { tagRequestSpan } from '../tracing';

/**
 * Query parameters that carry secrets (or, for `search`, may: a log search for a secret must not log it):
 * their values never reach a log line.
 */
const SECRET_QUERY = /([?&](?:token|approval_token|poll_token|api_secret|search)=)[^&]*/gi;
const REQUEST_ID = /^[\w.-]{1,100}$/;

/** As the access log always leveled it: by status; a request its client gave up on is not the service's error. */
const levelOf = (status: number) => (status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info');

/**
 * The first thing every request meets: its id (the caller's X-Request-Id when well formed), the headers every
 * answer carries, the request context log lines and spans read, and, once the answer ends, one observation of
 * lead_http_request_duration_seconds by operation and status and one access log line. Built for the hot path:
 * one listener per request, the labelled histogram looked up once per (operation, status), and the log line
 * (method, redacted URL, status, time) built only when its level is enabled.
 */
export function observeRequests(logger: Logger, operationOf: (req: Request) => string): RequestHandler {
  const histograms = new Map<string, ReturnType<typeof httpRequestDuration.labels>>();
  const observe = (operation: string, status: string, seconds: number) => {
    const key = `${operation} ${status}`;
    let histogram = histograms.get(key);
    if (!histogram) histograms.set(key, (histogram = httpRequestDuration.labels(operation, status)));
    histogram.observe(seconds);
  };
  const ended = (req: Request, res: Response, started: number) => {
    const ms = performance.now() - started;
    const failed = !res.headersSent;
    observe(operationOf(req), failed ? 'aborted' : String(res.statusCode), ms / 1000);
    // A refusal past capacity (res.locals.shed) is logged as an answer, not an error: under overload there are
    // thousands a second, and lead_http_requests_shed_total counts them.
    const level = res.locals.shed ? 'info' : levelOf(res.statusCode);
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      request_id: req.requestId,
      req: { method: req.method, url: req.originalUrl.replace(SECRET_QUERY, '$1[redacted]') },
      res: { statusCode: res.statusCode },
      responseTime: Math.round(ms),
    };
    logger[level](line, res.writableFinished ? 'request completed' : 'request aborted');
  };
  return (req, res, next) => {
    const started = performance.now();
    const given = req.get('x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    req.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    // Every answer is what its Content-Type says: a browser never sniffs media, logos or JSON into HTML or script.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.once('close', () => ended(req, res, started));
    tagRequestSpan(requestId);
    requestContext.run({ requestId }, next);
  };
}
