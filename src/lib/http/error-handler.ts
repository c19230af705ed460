import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';
import { AppError, type FieldError } from '../errors';
import { redisOutOfMemory, unavailableEngine } from './engine-errors';
import { hasBody } from './operations';

interface ValidatorError {
  status: number;
  message: string;
  errors?: { path?: string; message: string }[];
}

const LOCATIONS: Record<string, string> = {
  body: 'body',
  query: 'query',
  params: 'path',
  path: 'path',
  headers: 'header',
  cookies: 'cookie',
};

function fieldErrors(err: ValidatorError): FieldError[] {
  return (err.errors ?? []).map((e) => {
    const parts = (e.path ?? '').split(/[./]/).filter(Boolean);
    const location = LOCATIONS[parts[0]] ?? 'body';
    const field = (LOCATIONS[parts[0]] ? parts.slice(1) : parts).join('.') || '(root)';
    return { location, field, message: e.message };
  });
}

function isValidatorError(err: unknown): err is ValidatorError {
  return (
    typeof err === 'object' && err !== null && typeof (err as ValidatorError).status === 'number' && 'errors' in err
  );
}

/** 422, or the status the operation's contract names for invalid input (400 for content authoring). */
function validationStatus(req: Request): number {
  const op = (req as unknown as { openapi?: { schema?: { 'x-validation-status'?: number } } }).openapi?.schema;
  return op?.['x-validation-status'] ?? 422;
}

/** A busy document engine frees connections within moments; one that is down takes longer to come back. */
const POOL_WAIT_RETRY_AFTER_SECONDS = 1;
const ENGINE_RETRY_AFTER_SECONDS = 5;

/** The driver gave up waiting for a connection of its pool (MONGO_WAIT_QUEUE_TIMEOUT_MS): busy, not down. */
const isPoolWaitTimeout = (err: unknown) =>
  typeof err === 'object' && err !== null && (err as { name?: string }).name === 'MongoWaitQueueTimeoutError';

/** Turns any failure into the contract's error body {detail} with the right status (docs/decisions.md §3). */
export function toAppError(err: unknown, req: Request, exposeInternals: boolean): AppError {
  if (err instanceof AppError) return err;
  const bodyError = err as { type?: string; limit?: number };
  if (bodyError.type === 'entity.parse.failed') return AppError.badRequest('Malformed JSON body');
  if (bodyError.type === 'entity.too.large')
    return new AppError(413, `Request body larger than ${bodyError.limit} bytes`);
  if (isValidatorError(err)) {
    if (err.status === 400) {
      const errors = fieldErrors(err);
      const detail = `Invalid request: ${errors.map((e) => `${e.location} ${e.field} ${e.message}`).join('; ')}`;
      return new AppError(validationStatus(req), detail, { errors });
    }
    if (err.status === 404) return AppError.notFound('No such route');
    if (err.status === 405) return new AppError(405, 'Method not allowed on this route');
    if (err.status === 415) {
      // A missing or non-JSON body is a body error like any other: 422 (400 for content authoring).
      return new AppError(validationStatus(req), 'Send a JSON body with Content-Type: application/json', {
        errors: [{ location: 'header', field: 'Content-Type', message: 'must be application/json' }],
      });
    }
    if (err.status >= 500)
      return new AppError(
        500,
        exposeInternals ? `Contract violation: ${err.message} ${JSON.stringify(err.errors)}` : 'Internal error',
      );
    return new AppError(err.status, err.message);
  }
  if (isPoolWaitTimeout(err))
    return AppError.overloaded(
      'Service busy: no document-engine connection freed in time; retry later',
      POOL_WAIT_RETRY_AFTER_SECONDS,
    );
  if (redisOutOfMemory(err))
    return AppError.unavailable('Service temporarily unavailable: redis is out of memory', ENGINE_RETRY_AFTER_SECONDS);
  const engine = unavailableEngine(err);
  if (engine)
    return AppError.unavailable(
      `Service temporarily unavailable: ${engine} is unreachable`,
      ENGINE_RETRY_AFTER_SECONDS,
    );
  return new AppError(500, exposeInternals ? `Internal error: ${(err as Error)?.message}` : 'Internal error');
}

export function errorHandler(logger: Logger, exposeInternals: boolean) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const appError = toAppError(err, req, exposeInternals);
    // A refusal past capacity is the service working as designed: counted by metrics, not logged as a failure.
    if (appError.shed) res.locals.shed = true;
    if (appError.status >= 500 && appError.status !== 501 && !appError.shed) {
      logger.error({ err, status: appError.status, path: req.path }, 'request failed');
    }
    if (res.headersSent) return res.end();
    // A request answered before its body has arrived (refused at the edge, 401, 403, ...): its connection is closed
    // after the answer, not kept while the rest of a body nobody reads arrives (from a slow sender, for minutes).
    if (hasBody(req) && !req.complete) res.set('Connection', 'close');
    res.set(appError.headers);
    res.status(appError.status).json({ detail: appError.detail, ...appError.extra });
  };
}
