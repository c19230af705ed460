/** Which engine an error comes from when it means "that engine is unreachable" (→ 503), else null. */
export function unavailableEngine(err: unknown): 'mongodb' | 'redis' | 'temporal' | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as { name?: string; message?: string; code?: unknown; cause?: { code?: unknown } };
  const name = e.name ?? '';
  const message = e.message ?? '';
  if (
    /^Mongo(ose)?(ServerSelection|Network|NetworkTimeout|NotConnected|TopologyClosed)Error$/.test(name) ||
    /before initial connection is complete|Client must be connected|connection .* closed/i.test(message)
  ) {
    return 'mongodb';
  }
  if (name === 'MaxRetriesPerRequestError' || /enableOfflineQueue|Connection is closed|ECONNREFUSED.*:6/.test(message)) {
    return 'redis';
  }
  const grpcCode = typeof e.code === 'number' ? e.code : e.cause?.code;
  if ((name === 'ServiceError' || name === 'TransportError' || name === 'ConnectionError') && (grpcCode === 14 || grpcCode === 4 || grpcCode === undefined)) {
    return 'temporal';
  }
  return null;
}
