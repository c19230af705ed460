import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../lib/logger';
import { SELECTED_CLIENT_HEADER } from '../lib/tenancy';
import { ActivityEventModel, type ShippedKind } from './activity-event.model';
import { actorOf, type ActivityInput, type ActivityRecorder } from './recorder';

/** Operations whose success ships something a shift reports. */
const SHIPPED_BY: Record<string, ShippedKind> = {
  publishPost: 'posts_published',
  publishPage: 'pages_published',
};
// A claimed pin ships when the end user completes the claim (no authenticated request): the pin activity
// records `pin.claimed` then (activities/pins.ts); confirm-pin itself only reserves the name.
export const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const ID_FIELDS = [
  'id',
  'job_id',
  'research_id',
  'request_id',
  'token_id',
  'agent_user_id',
  'integration_id',
  'user_id',
  'brand_id',
  'pin_id',
  'client_id',
];
const MAX_PARSED_BODY = 256 * 1024;

const RECORDED_BY_HANDLER = 'activityRecordedByHandler';

/**
 * Records what one request changed as events of their own (one per thing, with what changed of it) instead of the
 * request's one event: the handler records them before it answers, and the request is then not recorded again.
 */
export async function recordInstead(
  recorder: ActivityRecorder,
  res: { locals: Record<string, unknown> },
  events: ActivityInput[],
): Promise<void> {
  await Promise.all(events.map((event) => recorder.record(event)));
  res.locals[RECORDED_BY_HANDLER] = true;
}

interface OpenApiRequest {
  openapi?: { schema?: { operationId?: string }; pathParams?: Record<string, string> };
}

function parseJsonBody(res: Response, chunk: unknown): Record<string, unknown> | null {
  if (!/json/.test(String(res.getHeader('content-type') ?? ''))) return null;
  const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : null;
  if (!text || text.length > MAX_PARSED_BODY) return null;
  try {
    const body = JSON.parse(text);
    return body && typeof body === 'object' && !Array.isArray(body) ? body : null;
  } catch {
    return null;
  }
}

/** The thing acted on: the most specific path parameter, or the id of what the response created. */
function subjectOf(operationId: string, pathParams: Record<string, string>, body: Record<string, unknown> | null) {
  const params = Object.entries(pathParams);
  if (params.length) {
    const [name, id] = params[params.length - 1];
    return { kind: name.replace(/_id$/, ''), id: String(id) };
  }
  const field = body && ID_FIELDS.find((f) => typeof body[f] === 'string' || typeof body[f] === 'number');
  if (!field) return null;
  const kind =
    field === 'id'
      ? operationId.replace(/^[a-z]+/, '').replace(/^./, (c) => c.toLowerCase()) || operationId
      : field.replace(/_id$/, '');
  return { kind, id: String(body![field]) };
}

function labelOf(body: Record<string, unknown> | null): string | null {
  for (const f of ['title', 'name', 'slug', 'pin_name', 'query'])
    if (typeof body?.[f] === 'string') return body[f] as string;
  return null;
}

/**
 * The one place API actions are recorded: every successful authenticated request that is not a read
 * records {client, actor, role, action = operationId, subject}. The event is appended to the activity
 * stream before the response is finished (one Redis round trip), so an acknowledged action is never
 * missing from the log; the worker's drain stores it in MongoDB.
 */
export function recordWrites(recorder: ActivityRecorder, logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const caller = req.caller;
    const { schema, pathParams = {} } = (req as OpenApiRequest).openapi ?? {};
    const operationId = schema?.operationId;
    if (!caller || !operationId || READS.has(req.method)) return next();
    const actor = actorOf(caller);
    if (!actor) return next();
    const end = res.end;
    let ending = false;
    res.end = function endAfterRecording(this: Response, ...args: unknown[]) {
      if (ending || res.statusCode >= 400 || res.locals[RECORDED_BY_HANDLER]) return end.apply(this, args as never);
      ending = true;
      const body = parseJsonBody(res, args[0]);
      const selected = caller.role === 'super_admin' ? req.get(SELECTED_CLIENT_HEADER) : undefined;
      const clientId = selected || caller.clientId || (typeof body?.client_id === 'string' ? body.client_id : null);
      // A platform action of a super_admin: no client to log it for.
      if (!clientId) return end.apply(this, args as never);
      const event: ActivityInput = {
        clientId,
        actor,
        action: operationId,
        subject: subjectOf(operationId, pathParams, body),
        shipped: SHIPPED_BY[operationId] ?? null,
        label: labelOf(body),
      };
      recorder
        .record(event)
        .catch((err) =>
          logger.error({ err: (err as Error).message, action: operationId }, 'activity: event not recorded'),
        )
        .finally(() => end.apply(this, args as never));
      return this;
    } as Response['end'];
    next();
  };
}

/** Removes the activity events older than `cutoff`, of every client (the retention purge); answers how many. */
export async function purgeActivityBefore(cutoff: Date): Promise<number> {
  const { deletedCount } = await ActivityEventModel.deleteMany({ at: { $lt: cutoff } }).setOptions({
    allTenants: true,
  });
  return deletedCount;
}
