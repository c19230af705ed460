import net from 'node:net';

/**
 * A TCP hop in front of an engine that a test can hold: while held, nothing its clients send reaches the engine
 * (it waits here, in order), so every operation sent meanwhile keeps its connection busy until `release()`. It
 * makes "the engine is slow" deterministic without sleeping or loading the machine.
 */
export interface TcpHold {
  /** The upstream URL with its host and port replaced by this hop's. */
  url: string;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startTcpHold(upstreamUrl: string): Promise<TcpHold> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<net.Socket>();
  let held = false;
  /** What clients sent while held, to be passed on in order. */
  let waiting: { to: net.Socket; chunk: Buffer }[] = [];
  const server = net.createServer((client) => {
    const engine = net.connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, engine]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => (held ? waiting.push({ to: engine, chunk }) : engine.write(chunk)));
    engine.pipe(client);
    client.on('close', () => engine.destroy());
    engine.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(upstreamUrl);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: url.toString(),
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const { to, chunk } of waiting) if (!to.destroyed) to.write(chunk);
      waiting = [];
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
