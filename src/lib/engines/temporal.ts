import { Client, Connection } from '@temporalio/client';

/** A Temporal client on a lazy connection: the API starts even while Temporal is down, and reconnects later. */
export function createTemporalClient(address: string, namespace: string): Client {
  const connection = Connection.lazy({ address, connectTimeout: 3000 });
  return new Client({ connection, namespace });
}

export async function pingTemporal(client: Client): Promise<void> {
  await client.connection.workflowService.describeNamespace({ namespace: client.options.namespace });
}

/** How long a Temporal call made while an HTTP request waits may take, retries included. */
export const REQUEST_CALL_DEADLINE_MS = 8_000;

/**
 * Runs Temporal calls under a deadline, so an unreachable server ends in DEADLINE_EXCEEDED (503 to the
 * caller) within bounded time, instead of the client's own retries outlasting the request. A call that
 * times out may still have taken effect; every use is idempotent or reports the state it finds.
 */
export function withinDeadline<T>(client: Client, fn: () => Promise<T>, ms = REQUEST_CALL_DEADLINE_MS): Promise<T> {
  return client.withDeadline(Date.now() + ms, fn);
}
