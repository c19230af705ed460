import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors';

/**
 * The longest value of each header a dependency reads with a pattern whose time grows with the square of the value's
 * length. A media type's name is at most 127 characters a side (RFC 6838): a real Content-Type, with a charset or a
 * multipart boundary, is under 100 characters; a browser's Accept under 300.
 */
const BOUNDED_HEADERS: [name: string, bound: number][] = [
  ['Content-Type', 256],
  ['Accept', 1024],
];

/**
 * Answers 431 for a header of BOUNDED_HEADERS longer than its bound, first of all, as the HTTP server answers 431 for
 * headers past its total bound. The request validator (express-openapi-validator) reads Content-Type parameters
 * with `/;\s*([^=]+)=([^;]+)/g`, and, where responses are validated, each media type of Accept with the same: one
 * request whose Content-Type was 15,000 semicolons held the event loop for 220 ms (an Accept of as many, 170 ms),
 * on a public operation, so a few a second from anyone stalled every tenant's requests.
 */
export function boundedHeaders(req: Request, _res: Response, next: NextFunction): void {
  for (const [name, bound] of BOUNDED_HEADERS) {
    const length = req.get(name)?.length ?? 0;
    if (length > bound)
      return next(new AppError(431, `${name} is ${length} characters long; at most ${bound} are read`));
  }
  next();
}
