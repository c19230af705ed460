import express, { type RequestHandler } from 'express';

interface OperationBodyLimit {
  'x-body-limit'?: number;
}

/**
 * express.json with the limit the operation allows: the contract may raise it for one operation
 * (`x-body-limit`, e.g. a logo sent as base64), every other body keeps the configured limit. Runs
 * after routing and authentication, so only a caller allowed to call the operation gets the larger one.
 * One parser per distinct limit, shared by the operations that have it.
 */
export function jsonBodyParsers(defaultLimit: number) {
  const parsers = new Map<number, RequestHandler>();
  return (op: OperationBodyLimit): RequestHandler => {
    const limit = Math.max(op['x-body-limit'] ?? 0, defaultLimit);
    let parser = parsers.get(limit);
    if (!parser) parsers.set(limit, (parser = express.json({ limit })));
    return parser;
  };
}

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/**
 * The parser of an HTML form's fields, for the few operations whose contract declares a form body (a page's
 * button POSTing its inputs); every other operation gets none, so a form sent to it is refused as before.
 */
export function formBodyParser(op: { requestBody?: unknown }, limit: number): RequestHandler[] {
  const content = (op.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
  return content?.[FORM_MEDIA_TYPE] ? [express.urlencoded({ extended: false, limit })] : [];
}

/** Handlers run one after the other as one handler (the first error goes to `next`, skipping the rest). */
export function inTurn(handlers: RequestHandler[]): RequestHandler {
  if (handlers.length === 1) return handlers[0];
  return (req, res, next) => {
    const run = (i: number, err?: unknown): void => {
      if (err || i === handlers.length) return next(err);
      handlers[i](req, res, (e?: unknown) => run(i + 1, e));
    };
    run(0);
  };
}
