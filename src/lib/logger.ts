import pino from 'pino';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { contextLogFields } from './request-context';
import { LogTap } from './log-tap';

const taps = new WeakMap<pino.Logger, LogTap>();

/** The tap of a logger made by createLogger: what it writes also goes to the log viewer's store once attached. */
export const logTapOf = (logger: pino.Logger): LogTap | undefined => taps.get(logger);

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
  const tap = new LogTap();
  const logger = pino(
    {
      level,
      base: { service: 'lead-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // The request or activity a line is written for, and the span it belongs to when tracing is on.
      mixin() {
        const fields: Record<string, string> = contextLogFields();
        const span = trace.getSpan(context.active())?.spanContext();
        if (span && isSpanContextValid(span)) Object.assign(fields, { trace_id: span.traceId, span_id: span.spanId });
        return fields;
      },
    },
    pino.multistream([
      { level: 'trace', stream: destination ?? pino.destination(1) },
      { level: 'trace', stream: tap },
    ]),
  );
  taps.set(logger, tap);
  return logger;
}

export type Logger = pino.Logger;
