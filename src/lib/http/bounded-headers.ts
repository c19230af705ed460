import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors';

/**
 * The longest Content-Type the service reads. A media type's name is at most 127 characters a side (RFC 6838); the
 * ones clients send, with a charset or a multipart boundary, are under 100.
 */
export const MAX_CONTENT_TYPE_LENGTH = 256;

/**
 * Answers 431 for a Content-Type longer than MAX_CONTENT_TYPE_LENGTH, first of all, as the HTTP server answers 431
 * for headers past its total bound. The request validator reads the header's parameters with a pattern whose time
 * grows with the square of the header's length: one request whose Content-Type was 15,000 semicolons held the event
 * loop for 220 ms, on a public operation, so a few a second from anyone stalled every tenant's requests.
 */
export function boundedContentType(req: Request, _res: Response, next: NextFunction): void {
  const length = req.headers['content-type']?.length ?? 0;
  if (length > MAX_CONTENT_TYPE_LENGTH)
    return next(
      new AppError(431, `Content-Type is ${length} characters long; at most ${MAX_CONTENT_TYPE_LENGTH} are read`),
    );
  next();
}
