import { randomUUID } from 'node:crypto';
import cookieParser from 'cookie-parser';
import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { fullFormats } from 'ajv-formats/dist/formats';
import { pinoHttp } from 'pino-http';
import swaggerUi from 'swagger-ui-express';
import './lib/http-types';
import { AppError } from './lib/errors';
import { errorHandler } from './lib/http/error-handler';
import { loadOpenApi } from './lib/http/openapi-spec';
import { mountOperations, type OperationHandlers } from './lib/http/operations';
import { jsonBody } from './lib/http/json-body';
import { multiSegmentPaths } from './lib/http/wildcard-paths';
import { memoisePathToRegexp } from './lib/http/path-regexp-cache';
import { requestContext } from './lib/request-context';
import { requestMetrics } from './lib/http/request-metrics';
import { tagRequestSpan } from './lib/tracing';
import { handlersOf, pagesOf } from './lib/module';
import { TEMPORAL_CODEC_PATH } from './lib/engines/payload-codec';
import type { Infra } from './infra';
import type { Modules } from './services';
import { authenticate } from './auth/authenticate';
import { recordWrites } from './activity/record-writes';

/**
 * Query parameters that carry secrets (or, for `search`, may: a log search for a secret must not log it):
 * their values never reach a log line.
 */
const SECRET_QUERY = /([?&](?:token|approval_token|poll_token|api_secret|search)=)[^&]*/gi;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** Every contract operation's handler, from the area modules (the router mounts them by operationId). */
export const operationHandlers = (modules: Modules): OperationHandlers => handlersOf(modules);

/** The paths the contract does not describe: the API docs and the pages the modules serve. */
function outsideTheContract(pagePaths: string[]): RegExp {
  const names = ['docs', 'openapi\\.yaml', ...pagePaths.map((p) => p.slice(1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))];
  return new RegExp(`^/(${names.join('|')})(/|$)`);
}

/**
 * express-openapi-validator's middlewares, cut before request validation: the first part finds the
 * operation (req.openapi), the second validates parameters and body (and responses). Failing loudly
 * here if an upgrade renames its stages keeps the gate order from silently changing.
 */
function splitValidator(stages: express.RequestHandler[]) {
  const at = stages.findIndex((m) => m.name === 'requestMiddleware');
  if (at < 1 || !stages.slice(0, at).some((m) => m.name === 'metadataMiddleware')) {
    throw new Error(
      'express-openapi-validator: cannot find its request-validation stage to run authentication before it',
    );
  }
  return { routing: stages.slice(0, at), validation: stages.slice(at) };
}

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

export function createApp(infra: Pick<Infra, 'config' | 'logger' | 'temporalUiUrl'>, modules: Modules): Express {
  const { config, logger } = infra;
  memoisePathToRegexp();
  const { doc, text } = loadOpenApi();
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY); // req.ip, which every per-address limit counts, is the client's

  app.use((req, res, next) => {
    const given = req.get('x-request-id');
    req.requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    // Every answer is what its Content-Type says: a browser never sniffs media, logos or JSON into HTML or script.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    tagRequestSpan(req.requestId);
    requestContext.run({ requestId: req.requestId }, next);
  });
  const pages = pagesOf(modules);
  app.use(requestMetrics(doc, Object.keys(pages)));
  app.use(
    pinoHttp({
      logger,
      genReqId: (req) => (req as express.Request).requestId!,
      serializers: {
        req: (req) => ({ method: req.method, url: String(req.url).replace(SECRET_QUERY, '$1[redacted]') }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    }),
  );

  app.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').send(text));
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(doc, { customSiteTitle: 'lead-service API' }));
  for (const [path, page] of Object.entries(pages)) app.get(path, page);

  app.use(TEMPORAL_CODEC_PATH, temporalUiCors(infra.temporalUiUrl));
  app.use(modules.content.fastPath); // cached public content reads, before parsing and validation
  app.use(cookieParser());
  app.use(multiSegmentPaths(doc));
  const validator = OpenApiValidator.middleware({
    apiSpec: structuredClone(doc) as never,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
    validateResponses: config.VALIDATE_RESPONSES ? { removeAdditional: false } : false,
    validateSecurity: false, // authenticate() applies the contract's security, roles and scopes
    ignoreUndocumented: false,
    ignorePaths: outsideTheContract(Object.keys(pages)),
    validateFormats: true,
    // A uri is ASCII (RFC 3986), as clients' validators expect; other formats stay lenient
    // (admin@localhost is an e-mail).
    formats: { uri: fullFormats.uri },
    useRequestUrl: true, // match req.url, which multiSegmentPaths() may have folded
  }) as unknown as express.RequestHandler[];
  // The gates in the order the contract promises: the operation is found (404/405), credentials (401),
  // role and scope (403), and only then is the body parsed (400/413) and the request validated (422).
  const { routing, validation } = splitValidator(validator);
  app.use(routing);
  app.use(authenticate(modules.auth));
  app.use(recordWrites(modules.activity.recorder, logger)); // the activity log: every successful authenticated write
  app.use(jsonBody(config.JSON_BODY_LIMIT_BYTES));
  app.use(validation);
  app.use(mountOperations(doc, operationHandlers(modules)));
  app.use(() => {
    throw AppError.notFound('No such route');
  });
  app.use(errorHandler(logger, config.exposeErrorDetails));
  return app;
}
