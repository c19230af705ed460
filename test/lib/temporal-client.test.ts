import net from 'node:net';
import { createTemporalClient } from '../../src/lib/engines/temporal';

/** A loopback port nothing listens on: every call to it fails UNAVAILABLE, which the client retries. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Temporal client', () => {
  it('fails a call whose retry is waiting when the connection closes, instead of throwing from the retry timer', async () => {
    const client = createTemporalClient(`127.0.0.1:${await closedPort()}`, 'default');
    const call = client.workflowService.getSystemInfo({}).then(() => 'answered', (err: Error) => err.message);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the first attempt is refused; the retry waits
    await client.connection.close();
    expect(await call).toMatch(/^1 CANCELLED: Temporal connection closed/);
  });
});
