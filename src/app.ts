import express, { type Express } from 'express';
import { fullFormats } from 'ajv-formats/dist/formats';
import swaggerUi from 'swagger-ui-express';
import './lib/http-types';
import { errorHandler } from './lib/http/error-handler';
import { loadOpenApi } from './lib/http/openapi-spec';
import { routeOperations, type OperationHandlers } from './lib/http/operations';
import { idempotencyStages } from './lib/http/idempotency';
import { compileContract, operationOf, type CompiledContract } from './lib/http/contract';
import { formBodyParser, inTurn, jsonBodyParsers } from './lib/http/json-body';
import { multiSegmentPaths } from './lib/http/wildcard-paths';
import { observeRequests } from './lib/http/request-observer';
import { boundedHeaders } from './lib/http/bounded-headers';
import { admission } from './lib/http/admission';
import { handlersOf, pagesOf } from './lib/module';
import { TEMPORAL_CODEC_PATH } from './lib/engines/payload-codec';
import type { Infra } from './infra';
import type { Config } from './lib/config';
import type { Modules } from './services';
import { authenticate } from './auth/authenticate';
import { serveConsole } from './console/serve-console';
import { READS, recordWrites } from './activity/record-writes';

/** Every contract operation's handler, from the area modules (the router mounts them by operationId). */
export const operationHandlers = (modules: Modules): OperationHandlers => handlersOf(modules);

/**
 * The Temporal UI calls the codec endpoint from its own origin with the operator's session cookie: that one
 * origin may, with credentials (its preflight is answered here, before routing).
 */
function temporalUiCors(uiUrl: string | null): express.RequestHandler {
  const origin = uiUrl ? new URL(uiUrl).origin : null;
  return (req, res, next) => {
    if (!origin || req.get('origin') !== origin) return next();
    res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin' });
    if (req.method !== 'OPTIONS') return next();
    res.set({
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': 'content-type, x-namespace',
      'Access-Control-Max-Age': '600',
    });
    res.status(204).end();
  };
}

/**
 * The contract compiled once, before the server listens: the validator's preparation of openapi.yaml and the
 * route tree every request is looked up in.
 */
export function compileServiceContract(config: Pick<Config, 'VALIDATE_RESPONSES'>): Promise<CompiledContract> {
  return compileContract(loadOpenApi().doc, {
    validateResponses: config.VALIDATE_RESPONSES,
    // A uri is ASCII (RFC 3986), as clients' validators expect; other formats stay lenient
    // (admin@localhost is an e-mail).
    formats: { uri: fullFormats.uri },
  });
}

export function createApp(
  infra: Pick<Infra, 'config' | 'logger' | 'temporalUiUrl' | 'engines' | 'ring'>,
  modules: Modules,
  contract: CompiledContract,
): Express {
  const { config, logger } = infra;
  const { doc, text } = loadOpenApi();
  const app = express();
  app.disable('x-powered-by');
  // No ETag on every JSON answer (Express's default: a SHA-1 of each body, and then a 304 to a matching or `*`
  // If-None-Match that the contract declares nowhere). The operations that promise validators set their own and
  // answer 304 themselves (content's public reads, media, brand logos: lib/http/conditional-get.ts).
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY); // req.ip, which every per-address limit counts, is the client's

  const pages = pagesOf(modules);
  app.use(observeRequests(logger, metricsOperationOf(contract, Object.keys(pages))));
  // Past capacity, or past its address's share, a request is refused here, before any work (docs/performance.md,
  // "Load"; docs/security.md, "Fairness").
  const gate = admission({
    maxConcurrent: config.HTTP_MAX_CONCURRENT_REQUESTS,
    maxEventLoopDelayMs: config.HTTP_MAX_EVENT_LOOP_DELAY_MS,
    maxBodiesArrivingPerAddress: config.HTTP_MAX_BODIES_ARRIVING_PER_ADDRESS,
    retryAfterSeconds: config.HTTP_SHED_RETRY_AFTER_SECONDS,
  });
  app.use(gate.admit);
  app.use(boundedHeaders);
  app.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').send(text));
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(doc, { customSiteTitle: 'lead-service API' }));
  for (const [path, page] of Object.entries(pages)) app.get(path, page);
  app.use('/console', serveConsole(config.CONSOLE_DIST_DIR)); // the console (docs/console.md), outside the contract like the pages

  app.use(TEMPORAL_CODEC_PATH, temporalUiCors(infra.temporalUiUrl));
  app.use(modules.content.fastPath); // cached public content reads, before parsing and validation
  app.use(multiSegmentPaths(doc));
  // The gates in the order the contract promises: the operation is found (404/405), credentials (401),
  // role and scope (403), an agent's rate limits (429), and only then is the body parsed (400/413) and the
  // request validated (422). A body still arriving is read without holding a slot of the edge's bound.
  const jsonBody = jsonBodyParsers(config.JSON_BODY_LIMIT_BYTES);
  // Where a cookie-carried write may come from besides the request's own origin (auth/authenticate.ts).
  const trustedOrigins = new Set(
    [config.PUBLIC_BASE_URL, infra.temporalUiUrl].flatMap((url) => (url ? [new URL(url).origin] : [])),
  );
  const recordWrite = recordWrites(modules.activity.recorder, logger); // every successful authenticated write
  // A retry with the Idempotency-Key of an answered request gets that answer, once the request is known valid.
  const idempotency = idempotencyStages({
    document: doc,
    redis: infra.engines.redis,
    ring: infra.ring,
    logger,
    ttlSeconds: config.IDEMPOTENCY_KEY_TTL_SECONDS,
    leaseSeconds: config.IDEMPOTENCY_LEASE_SECONDS,
    maxAnswersPerCaller: config.IDEMPOTENCY_MAX_ANSWERS_PER_CALLER,
    maxBytesPerCaller: config.IDEMPOTENCY_MAX_BYTES_PER_CALLER,
  });
  app.use(
    routeOperations(
      contract,
      operationHandlers(modules),
      ({ method, schema }) => [
        authenticate(modules.auth, schema, trustedOrigins),
        modules.agents.limitRequests,
        ...(READS.has(method) ? [] : [recordWrite]),
        // JSON, and an HTML form's fields where the contract declares them: one handler, so the request's slot is
        // given back once while its body arrives.
        gate.whileBodyArrives(inTurn([jsonBody(schema), ...formBodyParser(schema, config.JSON_BODY_LIMIT_BYTES)])),
      ],
      idempotency,
    ),
  );
  app.use(errorHandler(logger, config.exposeErrorDetails));
  return app;
}

/**
 * A request's operation as the metrics name it: the one it was routed to; for one answered before routing (a
 * cached public read) the contract's operation its path and method match; otherwise what it is (`page`, `docs`,
 * `unmatched`), so label values stay the contract's operation ids and a few words.
 */
function metricsOperationOf(contract: CompiledContract, pagePaths: string[]) {
  const pages = new Set(pagePaths);
  return (req: express.Request): string => {
    const routed = operationOf(req)?.operationId;
    if (routed) return routed;
    const path = req.originalUrl.split('?')[0];
    const declared = contract.lookup(req.method, path);
    if (declared.found) return declared.found.schema.operationId;
    if (pages.has(path)) return 'page';
    if (/^\/console(?:\/|$)/.test(path)) return 'console';
    return /^\/(?:docs|openapi\.yaml)(?:\/|$)/.test(path) ? 'docs' : 'unmatched';
  };
}
