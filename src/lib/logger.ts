import pino from 'pino';
import { currentRequestId } from './request-context';

/** Paths that may hold a secret: pino replaces them before a line is written. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.new_password',
  '*.api_secret',
  '*.api_key',
  '*.token',
  '*.access_token',
  '*.approval_token',
  '*.poll_token',
  '*.credentials',
];

export function createLogger(level: string, destination?: pino.DestinationStream): pino.Logger {
  return pino(
    {
      level,
      base: { service: 'lead-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      mixin() {
        const requestId = currentRequestId();
        return requestId ? { request_id: requestId } : {};
      },
    },
    destination,
  );
}

export type Logger = pino.Logger;
