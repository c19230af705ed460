import { MongoClient } from 'mongodb';
import { failWritesToDestroyedSockets } from '../../src/lib/engines/mongo-socket-guard';
import { eventually } from '../support/eventually';

/** The driver's server monitor, as far as this test reaches into it (mongodb 6.20 internals). */
interface DriverMonitor {
  s: { state: string };
  connection: { socket: { destroy(): void } } | null;
  monitorId?: { toJSON(): { timeSinceLastCall: number } };
  requestCheck(): void;
}

const monitorOf = (client: MongoClient) =>
  [...(client as unknown as { topology: { s: { servers: Map<string, { monitor: DriverMonitor }> } } }).topology.s.servers.values()][0].monitor; // prettier-ignore

/** Every heartbeat the client's monitor finished, in order. */
function heartbeats(client: MongoClient): string[] {
  const ended: string[] = [];
  client.on('serverHeartbeatSucceeded', () => ended.push('succeeded'));
  client.on('serverHeartbeatFailed', (e) => ended.push(`failed: ${e.failure.message}`));
  return ended;
}

/**
 * The moment after the engine closes the monitor's connection: its socket destroyed, its 'close' not emitted yet; and
 * in that moment a check, as a pool connection's close asks for one at once. The monitor's last check must be 500 ms
 * old (one asked for sooner is deferred, past the moment).
 */
async function checkOnADestroyedSocket(client: MongoClient): Promise<DriverMonitor> {
  const monitor = monitorOf(client);
  await eventually(
    async () =>
      monitor.s.state === 'idle' && monitor.connection && monitor.monitorId!.toJSON().timeSinceLastCall > 600
        ? true
        : undefined,
    10_000,
    50,
    'an idle monitor with its connection',
  );
  monitor.connection!.socket.destroy();
  monitor.requestCheck();
  expect(monitor.s.state).toBe('monitoring');
  return monitor;
}

describe('a command written to a socket the engine just closed', () => {
  const clients: MongoClient[] = [];
  const connect = async () => {
    const client = new MongoClient(process.env.MONGODB_URI!, { serverSelectionTimeoutMS: 3000 });
    clients.push(client);
    const ended = heartbeats(client);
    await client.connect();
    return { client, ended };
  };
  afterAll(() => Promise.all(clients.map((c) => c.close(true))));

  // The driver's own behaviour, kept as a test so that the guard goes once a driver no longer hangs: this then fails.
  it('without the guard, leaves the server monitor checking for good (the driver waits for a drain that never comes)', async () => {
    const { client, ended } = await connect();
    const monitor = await checkOnADestroyedSocket(client);
    const before = ended.length;
    // A check ends in milliseconds; this one never does. Three seconds of nothing show it without a long wait.
    await new Promise((r) => setTimeout(r, 3000));
    expect(ended.length).toBe(before);
    expect(monitor.s.state).toBe('monitoring');
  }, 20_000);

  it('with the guard, the check fails as on a closed connection and the next one reaches the engine', async () => {
    failWritesToDestroyedSockets();
    failWritesToDestroyedSockets(); // once is enough; twice changes nothing
    const { client, ended } = await connect();
    await checkOnADestroyedSocket(client);
    const before = ended.length;
    await eventually(async () => (ended.length > before ? true : undefined), 10_000, 20, 'the check to end');
    expect(ended.slice(before)).toEqual([expect.stringMatching(/^failed: connection <monitor> to .* closed$/)]);
    // The server is unknown now; an operation asks for a check at once, which connects anew and finds the engine.
    expect(await client.db('admin').command({ ping: 1 })).toMatchObject({ ok: 1 });
    expect(ended.slice(before + 1)).toContain('succeeded');
  }, 30_000);
});
