import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors';
import type { CompiledContract, RoutedOperation } from './contract';

export type OperationHandler = (req: Request, res: Response) => unknown | Promise<unknown>;
export type OperationHandlers = Record<string, OperationHandler>;

const notImplemented: OperationHandler = () => {
  throw AppError.notImplemented();
};

/** Runs request handlers in order as Express would (an error or a rejected promise ends in `done`). */
function runStages(stages: readonly OperationStage[], req: Request, res: Response, done: NextFunction): void {
  let at = 0;
  const next: NextFunction = (err?: unknown) => {
    if (err) return done(err);
    const stage = stages[at++];
    if (!stage) return done();
    try {
      const result = stage(req, res, next);
      if (result instanceof Promise) result.catch(done);
    } catch (thrown) {
      done(thrown);
    }
  };
  next();
}

export type OperationStage = (req: Request, res: Response, next: NextFunction) => unknown;

/**
 * Routes every request the contract declares, with one lookup, through the gates in the order the contract
 * promises: the operation is found (404/405), then `gates` (credentials 401, role and scope 403, the body's
 * parsing 400/413), then the request is validated (422) and the handler named by the operationId answers.
 * An operation without a handler answers 501, so the contract is always fully routed and an unbuilt
 * operation never pretends to succeed.
 */
export function routeOperations(
  contract: CompiledContract,
  handlers: OperationHandlers,
  gatesOf: (op: RoutedOperation) => OperationStage[],
): RequestHandler {
  const known = new Set(contract.operations.map((op) => op.schema.operationId));
  const unknown = Object.keys(handlers).filter((id) => !known.has(id));
  if (unknown.length) throw new Error(`handlers for operations openapi.yaml does not declare: ${unknown.join(', ')}`);
  const pipelines = new Map(
    contract.operations.map((op) => {
      const handler = handlers[op.schema.operationId] ?? notImplemented;
      const validation = [
        requestValidation(contract, op),
        ...(contract.validateResponse ? [contract.validateResponse] : []),
      ];
      return [op, [...gatesOf(op), ...validation, (req: Request, res: Response) => handler(req, res)] as const];
    }),
  );
  return (req, res, next) => {
    const query = req.url.indexOf('?');
    const route = contract.lookup(req.method, query < 0 ? req.url : req.url.slice(0, query));
    if (!route.found) {
      throw route.methodNotAllowed
        ? new AppError(405, 'Method not allowed on this route')
        : AppError.notFound('No such route');
    }
    contract.describe(req, route);
    runStages(pipelines.get(route.found)!, req, res, next);
  };
}

/** As body parsers tell (type-is): a request has a body when it says how long it is or that it is chunked. */
const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));

/**
 * The validator's request validation; for an operation that declares no parameter and no body, a request
 * without a query string or a body has nothing it could find wrong, and skips it.
 */
function requestValidation(contract: CompiledContract, op: RoutedOperation): OperationStage {
  const declaresNothing = !op.schema.requestBody && !(op.schema.parameters as unknown[] | undefined)?.length;
  if (!declaresNothing) return contract.validateRequest;
  return (req, res, next) =>
    req.url.includes('?') || hasBody(req) ? contract.validateRequest(req, res, next) : next();
}

/** A path parameter as the string the contract declares (Express types allow arrays for wildcards). */
export function pathParam(req: Request, name: string): string {
  return String(req.params[name]);
}
