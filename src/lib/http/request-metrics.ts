import type { Request, RequestHandler } from 'express';
import { httpRequestDuration } from '../metrics';
import { declaredOperations, type OpenApiDocument } from './openapi-spec';

/**
 * Observes every request's duration by contract operation and status (lead_http_request_duration_seconds).
 * The operation is the one the validator routed to; a request answered before routing (a cached public read,
 * an unknown path, a page) is matched against the contract's paths here, and otherwise named by what it is
 * (`page`, `docs`, `unmatched`), so label values stay the contract's operation ids and a few words.
 */
export function requestMetrics(doc: OpenApiDocument, pagePaths: string[]): RequestHandler {
  const routes = declaredOperations(doc).map(({ method, path, operation }) => ({
    method: method.toUpperCase(),
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    operationId: operation.operationId,
  }));
  const pages = new Set(pagePaths);
  const operationOf = (req: Request): string => {
    const routed = (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
    if (routed) return routed;
    const path = req.originalUrl.split('?')[0];
    const declared = routes.find((r) => r.method === req.method && r.pattern.test(path));
    if (declared) return declared.operationId;
    if (pages.has(path)) return 'page';
    return /^\/(docs|openapi\.yaml)(\/|$)/.test(path) ? 'docs' : 'unmatched';
  };
  return (req, res, next) => {
    const end = httpRequestDuration.startTimer();
    res.once('close', () =>
      end({ operation: operationOf(req), status: res.headersSent ? String(res.statusCode) : 'aborted' }),
    );
    next();
  };
}
