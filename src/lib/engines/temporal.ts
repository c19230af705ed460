import { Client, Connection } from '@temporalio/client';

/** A Temporal client on a lazy connection: the API starts even while Temporal is down, and reconnects later. */
export function createTemporalClient(address: string, namespace: string): Client {
  const connection = Connection.lazy({ address, connectTimeout: 3000 });
  return new Client({ connection, namespace });
}

export async function pingTemporal(client: Client): Promise<void> {
  await client.connection.workflowService.describeNamespace({ namespace: client.options.namespace });
}
