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
