import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Response as StatusTypedResponse } from 'express-serve-static-core';
import { AppError } from '../errors';
import type {
  JsonAnswer,
  OperationId,
  PathParams,
  QueryParams,
  RawAnswer,
  RequestBody,
  Status,
} from '../contract-types';
import type { CompiledContract, RoutedOperation } from './contract';

/**
 * The request of the operation `Op` once the contract's gates have passed it: its path parameters, query and
 * body as the contract declares them (the request validator checked them, coerced the parameters and filled
 * in their defaults before any handler runs). A member the contract does not declare cannot be read.
 */
export type OperationRequest<Op extends OperationId> = Request<
  PathParams<Op>,
  unknown,
  RequestBody<Op>,
  QueryParams<Op>
>;

/**
 * Any request, as a helper several operations share takes it: it reads what every request has (the caller, the
 * headers, the URL), never a parameter or the body by name (those come typed from the operation's request).
 */
export type AnyRequest = Request<object, unknown, unknown, object>;

/**
 * The response of the operation `Op`, answering with the status S (200 unless `status()` says otherwise): `json()`
 * takes the body the contract declares for S, `status()` only a status the contract declares, and `send()` text
 * or bytes only where the contract declares a media type other than JSON for S (CSV, HTML, an image). Streams
 * (server-sent events, an image piped from storage) write through the Node response (`write`, `end`, a pipeline).
 */
export type OperationResponse<Op extends OperationId, S extends number = 200> = {
  status<Code extends Status<Op>>(code: Code): OperationResponse<Op, Code>;
  json(body: JsonAnswer<Op, S>): OperationResponse<Op, S>;
  send(body: RawAnswer<Op, S>): OperationResponse<Op, S>;
} & StatusTypedResponse<never, Record<string, unknown>, Status<Op>>;

/** What an operation the contract declares only JSON answers for lacks: `rawResponse` refuses its response. */
type DeclaresRawAnswer<Op extends OperationId> = [RawAnswer<Op, Status<Op>>] extends [never]
  ? { onlyJsonIsDeclared: never }
  : unknown;

/**
 * The one escape from the typed response, open only to an operation the contract declares an answer other than
 * JSON for: the Express response, to stream server-sent events or a download, pipe an image or send a page with
 * the status of an error. What is written through it is not checked against the contract.
 */
export function rawResponse<Op extends OperationId>(
  res: OperationResponse<Op, number> & DeclaresRawAnswer<Op>,
): Response {
  return res as unknown as Response;
}

/** The handler of the operation `Op`: it answers through `res` (or throws an AppError). */
export type OperationHandler<Op extends OperationId> = (
  req: OperationRequest<Op>,
  res: OperationResponse<Op>,
) => unknown | Promise<unknown>;

/**
 * Handlers by operationId, each typed by its operation: a key the contract does not declare, a parameter or body
 * field it does not declare, or an answer of a shape it does not declare fails the typecheck.
 */
export type OperationHandlers = { [Op in OperationId]?: OperationHandler<Op> };

/** A handler as the router calls it, after the gates (the types above are what those gates guarantee). */
type RoutedHandler = (req: Request, res: Response) => unknown;

const notImplemented: RoutedHandler = () => {
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
 * parsing 400/413), then the request is validated (422), then the `valid` stages the operation's contract asks
 * for (a replayed answer for a retried Idempotency-Key), and the handler named by the operationId answers.
 * An operation without a handler answers 501, so the contract is always fully routed and an unbuilt
 * operation never pretends to succeed.
 */
export function routeOperations(
  contract: CompiledContract,
  handlers: OperationHandlers,
  gatesOf: (op: RoutedOperation) => OperationStage[],
  validOf: (op: RoutedOperation) => OperationStage[] = () => [],
): RequestHandler {
  const known = new Set(contract.operations.map((op) => op.schema.operationId));
  const unknown = Object.keys(handlers).filter((id) => !known.has(id));
  if (unknown.length) throw new Error(`handlers for operations openapi.yaml does not declare: ${unknown.join(', ')}`);
  const pipelines = new Map(
    contract.operations.map((op) => {
      const handler = (handlers as Record<string, RoutedHandler | undefined>)[op.schema.operationId] ?? notImplemented;
      const validation = [
        requestValidation(contract, op),
        ...(contract.validateResponse ? [contract.validateResponse] : []),
      ];
      const answer = (req: Request, res: Response) => handler(req, res);
      return [op, [...gatesOf(op), ...validation, ...validOf(op), answer] as const];
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
export const hasBody = (req: Request) =>
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
