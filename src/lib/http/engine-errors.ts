type Engine = 'mongodb' | 'redis' | 'temporal';

/**
 * Which engine an error comes from when it means "that engine is unreachable" (→ 503), else null.
 * A bulk write (insertMany) wraps the driver's server-selection failure: its `errorResponse` is looked into.
 */
export function unavailableEngine(err: unknown): Engine | null {
  return directlyUnavailable(err) ?? (hasWrapped(err) ? directlyUnavailable(err.errorResponse) : null);
}

const hasWrapped = (err: unknown): err is { errorResponse: unknown } =>
  typeof err === 'object' &&
  err !== null &&
  (err as { name?: string }).name === 'MongoBulkWriteError' &&
  'errorResponse' in err;

/** The names of the driver's (and Mongoose's) errors that say the server cannot be reached. */
const MONGO_UNAVAILABLE_KINDS = [
  'ServerSelection',
  'Network',
  'NetworkTimeout',
  'NotConnected',
  'TopologyClosed',
  'PoolCleared',
  'PoolClearedOnNetwork',
  'PoolClosed',
  'WaitQueueTimeout',
];
const MONGO_UNAVAILABLE = new RegExp(`^Mongo(?:ose)?(?:${MONGO_UNAVAILABLE_KINDS.join('|')})Error$`);

/**
 * A server that answered but could not do the work: a command that ran out of its time limit (MaxTimeMSExpired,
 * ExceededTimeLimit), or FerretDB cancelling its queries while it shuts down or its backend is gone.
 */
const serverGaveUp = (code: unknown, message: string) =>
  code === 50 || code === 262 || /context canceled/.test(message);

function directlyUnavailable(err: unknown): Engine | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { name?: string; message?: string; code?: unknown; cause?: { code?: unknown } };
  const name = e.name ?? '';
  const message = e.message ?? '';
  if (
    MONGO_UNAVAILABLE.test(name) ||
    /before initial connection is complete|Client must be connected|connection .* closed/i.test(message) ||
    (name === 'MongoServerError' && serverGaveUp(e.code, message))
  ) {
    return 'mongodb';
  }
  if (
    name === 'MaxRetriesPerRequestError' ||
    /enableOfflineQueue|Connection is closed|ECONNREFUSED.*:6/.test(message)
  ) {
    return 'redis';
  }
  // A Temporal call that ran out of its deadline (withinDeadline) while the server did not answer.
  if (name === 'WorkflowUpdateRPCTimeoutOrCancelledError') return 'temporal';
  const grpcCode = typeof e.code === 'number' ? e.code : e.cause?.code;
  if (
    (name === 'ServiceError' || name === 'TransportError' || name === 'ConnectionError') &&
    (grpcCode === 14 || grpcCode === 4 || grpcCode === undefined)
  ) {
    return 'temporal';
  }
  return null;
}

/**
 * Redis refusing a write past its memory bound (`maxmemory-policy noeviction`, docs/operations.md "Redis memory"):
 * the engine is there but takes no writes until lifetimes end or the streams drain (→ 503, as an engine away).
 */
export function redisOutOfMemory(err: unknown): boolean {
  const e = err as { name?: string; message?: string } | null;
  return e?.name === 'ReplyError' && typeof e.message === 'string' && e.message.startsWith('OOM ');
}
