import type { RequestHandler } from 'express';
import type { OperationHandlers } from './http/operations';

/**
 * An area of the service as the API and the worker see it, built once per process by its
 * `create<Area>Module(deps)`: the handlers of its contract operations (mounted by operationId), the pages
 * it serves outside the contract, the activities its workflows run, and what must close when it stops.
 */
export interface AreaModule<Activities extends object = object> {
  handlers: OperationHandlers;
  /** Pages outside /api/v1 that a person opens (GET only), by path. */
  pages?: Record<string, RequestHandler>;
  activities?: Activities;
  close?(): Promise<void>;
  /** What it offers other modules and the composition (its services and lookups), by name. */
  [offered: string]: unknown;
}

/** Every module's operation handlers, as one map for the router. */
export function handlersOf(modules: Record<string, AreaModule>): OperationHandlers {
  return Object.assign({}, ...Object.values(modules).map((m) => m.handlers));
}

/** Every module's pages, by path. */
export function pagesOf(modules: Record<string, AreaModule>): Record<string, RequestHandler> {
  return Object.assign({}, ...Object.values(modules).map((m) => m.pages ?? {}));
}

/** Closes every module that holds something open, side by side. */
export async function closeModules(modules: Record<string, AreaModule>): Promise<void> {
  await Promise.allSettled(Object.values(modules).map((m) => m.close?.()));
}
