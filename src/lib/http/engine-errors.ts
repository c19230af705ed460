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

function directlyUnavailable(err: unknown): Engine | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { name?: string; message?: string; code?: unknown; cause?: { code?: unknown } };
  const name = e.name ?? '';
  const message = e.message ?? '';
  if (
    /^Mongo(ose)?(ServerSelection|Network|NetworkTimeout|NotConnected|TopologyClosed|PoolCleared|PoolClearedOnNetwork|PoolClosed|WaitQueueTimeout)Error$/.test(
      name,
    ) ||
    /before initial connection is complete|Client must be connected|connection .* closed/i.test(message)
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
