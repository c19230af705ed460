import { Router, type Request, type Response } from 'express';
import { AppError } from '../errors';
import { declaredOperations, type OpenApiDocument } from './openapi-spec';

export type OperationHandler = (req: Request, res: Response) => unknown | Promise<unknown>;
export type OperationHandlers = Record<string, OperationHandler>;

const notImplemented: OperationHandler = () => {
  throw AppError.notImplemented();
};

/**
 * Routes every operation openapi.yaml declares to the handler named by its operationId.
 * An operation without a handler answers 501, so the contract is always fully routed and an
 * unbuilt operation never pretends to succeed.
 */
export function mountOperations(doc: OpenApiDocument, handlers: OperationHandlers): Router {
  const router = Router();
  const known = new Set<string>();
  for (const { method, expressPath, operation } of declaredOperations(doc)) {
    known.add(operation.operationId);
    router[method](expressPath, handlers[operation.operationId] ?? notImplemented);
  }
  const unknown = Object.keys(handlers).filter((id) => !known.has(id));
  if (unknown.length) throw new Error(`handlers for operations openapi.yaml does not declare: ${unknown.join(', ')}`);
  return router;
}

/** A path parameter as the string the contract declares (Express types allow arrays for wildcards). */
export function pathParam(req: Request, name: string): string {
  return String(req.params[name]);
}
