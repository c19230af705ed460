import type { Request, RequestHandler } from 'express';
import { error as validatorErrors } from 'express-openapi-validator';
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor';
import { RequestValidator } from 'express-openapi-validator/dist/middlewares/openapi.request.validator';
import { ContentType } from 'express-openapi-validator/dist/middlewares/util';
import type { OpenApiValidatorOpts } from 'express-openapi-validator/dist/framework/types';
import type { OpenApiDocument } from './openapi-spec';

/** An operation as express-openapi-validator prepared it (its `$ref`s resolved, its schemas preprocessed). */
export interface ContractOperation {
  operationId: string;
  security?: Record<string, string[]>[];
  'x-roles'?: string[];
  'x-scopes'?: string[];
  'x-body-limit'?: number;
  /** Where a public operation's request carries the token its Idempotency-Keys belong to (idempotency.ts). */
  'x-idempotency-scope'?: string;
  'x-validation-status'?: number;
  requestBody?: unknown;
  [key: string]: unknown;
}

/** What the validator's later stages read from `req.openapi` (the shape its own route lookup writes). */
export interface OpenApiRequestInfo {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: ContractOperation;
  serial: number;
  _responseSchema?: unknown;
}

export interface RoutedOperation {
  method: string;
  /** The path template as the contract writes it (`/api/v1/jobs/{job_id}`). */
  path: string;
  expressRoute: string;
  paramNames: string[];
  schema: ContractOperation;
  responseSchema: unknown;
}

export type RouteLookup = { found: RoutedOperation; params: string[] } | { found: null; methodNotAllowed: boolean };

interface Node {
  literals: Map<string, Node>;
  param: Node | null;
  /** By method, the operation whose template ends at this node. */
  operations: Map<string, RoutedOperation>;
}

const newNode = (): Node => ({ literals: new Map(), param: null, operations: new Map() });

/**
 * The contract's operations as one tree of path segments, literal segments tried before parameters (so
 * `/idap/media/{id}` wins over `/idap/{type}/{id}`). Matching follows the routing the validator did before:
 * case-insensitive literals, one optional trailing slash, a parameter is one non-empty segment.
 */
function buildTree(operations: RoutedOperation[]): Node {
  const root = newNode();
  for (const op of operations) {
    let node = root;
    for (const segment of op.path.slice(1).split('/')) {
      if (segment.startsWith('{')) node = node.param ??= newNode();
      else {
        const literal = segment.toLowerCase();
        let next = node.literals.get(literal);
        if (!next) node.literals.set(literal, (next = newNode()));
        node = next;
      }
    }
    node.operations.set(op.method, op);
  }
  return root;
}

/** The first template (literals first) that matches and declares `method`, or, with method null, any. */
function walk(node: Node, segments: string[], at: number, method: string | null, params: string[]): Node | null {
  if (at === segments.length) return (method ? node.operations.has(method) : node.operations.size > 0) ? node : null;
  const segment = segments[at];
  const literal = node.literals.get(segment) ?? node.literals.get(segment.toLowerCase());
  if (literal) {
    const found = walk(literal, segments, at + 1, method, params);
    if (found) return found;
  }
  if (node.param && segment !== '') {
    params.push(segment);
    const found = walk(node.param, segments, at + 1, method, params);
    if (found) return found;
    params.pop();
  }
  return null;
}

export interface CompiledContract {
  operations: RoutedOperation[];
  /** The one route lookup of a request: its operation and raw path parameters, or why there is none. */
  lookup(method: string, pathname: string): RouteLookup;
  /** Sets `req.openapi` and `req.params` as the validator's own lookup would (parameters decoded). */
  describe(req: Request, route: { found: RoutedOperation; params: string[] }): void;
  /** express-openapi-validator's request validation (parameters and body), fed the resolved operation. */
  validateRequest: RequestHandler;
  /**
   * Compiles every operation's request validator now (for a request without a body, and for each media type its
   * body may have), which the validator otherwise does on the operation's first request. Answers how many.
   */
  prepareValidators(): number;
  /** Its response validation, when configured. */
  validateResponse: RequestHandler | null;
}

export interface ContractOptions {
  validateResponses: boolean;
  /** The formats the contract checks beyond Ajv's fast ones. */
  formats: OpenApiValidatorOpts['formats'];
}

/**
 * Compiles the contract once at start: the validator's own preparation of the document (the spec loader and
 * schema preprocessor its `middleware()` runs), a route tree over its operations, and its request and response
 * validators. Routing each request once here replaces the validator's per-request scan of every declared path,
 * and its stages are called directly instead of through a promise each. The validator's internals are reached
 * by their module paths, so express-openapi-validator is pinned to the version they were read from.
 */
export async function compileContract(doc: OpenApiDocument, options: ContractOptions): Promise<CompiledContract> {
  const validatorOptions: OpenApiValidatorOpts = {
    apiSpec: doc as never, // read only for its presence: the loader below gets its own copy
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
    validateResponses: options.validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false, // authenticate() applies the contract's security, roles and scopes
    validateFormats: true,
    formats: options.formats,
  };
  const validator = new OpenApiValidator(validatorOptions) as unknown as {
    ajvOpts: { preprocessor: unknown; request: unknown };
    responseValidationMiddleware(apiDoc: unknown, serial: number): RequestHandler;
  };
  const spec = await new OpenApiSpecLoader({ apiDoc: structuredClone(doc) as never, validateApiSpec: true }).load();
  const preprocessed = new SchemaPreprocessor(
    spec.apiDoc,
    validator.ajvOpts.preprocessor as never,
    validatorOptions.validateResponses as never,
  ).preProcess();
  const paths = spec.apiDoc.paths as Record<string, Record<string, ContractOperation>>;
  const responsePaths = (preprocessed.apiDocRes?.paths ?? null) as Record<string, Record<string, unknown>> | null;
  const operations: RoutedOperation[] = spec.routes.map((route) => {
    const method = route.method.toLowerCase();
    const path = route.openApiRoute.slice(route.basePath.length);
    return {
      method: route.method,
      path,
      expressRoute: route.expressRoute,
      paramNames: [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]),
      schema: paths[path][method],
      responseSchema: responsePaths?.[path]?.[method],
    };
  });
  if (operations.some((op) => !op.schema?.operationId))
    throw new Error('every contract operation needs its operationId');
  const tree = buildTree(operations);
  const requestValidator = new RequestValidator(
    spec.apiDoc as never,
    validator.ajvOpts.request as never,
  ) as unknown as {
    validate: RequestHandler;
    middlewareCache: Record<string, RequestHandler>;
    buildMiddleware(path: string, schema: unknown, contentType: ContentType, key: string): RequestHandler;
  };

  return {
    operations,
    lookup(method, pathname) {
      const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
      const segments = trimmed.slice(1).split('/');
      const params: string[] = [];
      const node = walk(tree, segments, 0, method, params);
      if (node) return { found: node.operations.get(method)!, params };
      return { found: null, methodNotAllowed: walk(tree, segments, 0, null, []) !== null };
    },
    describe(req, { found, params }) {
      const pathParams: Record<string, string> = {};
      try {
        for (let i = 0; i < params.length; i++) pathParams[found.paramNames[i]] = decodeURIComponent(params[i]);
      } catch {
        throw new validatorErrors.BadRequest({ path: req.path, message: "malformed uri'" });
      }
      const info: OpenApiRequestInfo = {
        expressRoute: found.expressRoute,
        openApiRoute: found.path,
        pathParams,
        schema: found.schema,
        serial: spec.serial,
        _responseSchema: found.responseSchema,
      };
      (req as Request & { openapi: OpenApiRequestInfo }).openapi = info;
      req.params = pathParams;
    },
    validateRequest: (req, res, next) => requestValidator.validate(req, res, next),
    prepareValidators() {
      let compiled = 0;
      for (const op of operations) {
        const body = op.schema.requestBody as { content?: Record<string, unknown> } | undefined;
        for (const mediaType of [undefined, ...Object.keys(body?.content ?? {})]) {
          const contentType = ContentType.fromString(mediaType as string);
          // The validator's own cache key (openapi.request.validator.js, validate()).
          const key = `${op.method.toUpperCase()}-${op.expressRoute}-${contentType.normalize() ?? 'not_provided'}`;
          if (requestValidator.middlewareCache[key]) continue;
          try {
            requestValidator.middlewareCache[key] = requestValidator.buildMiddleware(
              op.expressRoute,
              op.schema,
              contentType,
              key,
            );
            compiled += 1;
          } catch (err) {
            // No validator for this case (a body the operation requires, sent without a media type): each such
            // request is refused when it comes (415), as before.
            if ((err as { status?: number }).status !== 415) throw err;
          }
        }
      }
      return compiled;
    },
    validateResponse: validatorOptions.validateResponses
      ? validator.responseValidationMiddleware(preprocessed.apiDocRes, spec.serial)
      : null,
  };
}

/** The operation a routed request was matched to (set by the operation router). */
export function operationOf(req: Request): ContractOperation | undefined {
  return (req as Request & { openapi?: OpenApiRequestInfo }).openapi?.schema;
}
