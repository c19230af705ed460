import type http from 'node:http';

export interface GracefulStop {
  /**
   * Stops the server: it accepts no new connection from here on; idle keep-alive connections close at once;
   * `endStreams` ends the long-lived answers (event streams); requests in flight get up to `graceMs` to finish,
   * each answer then closing its connection; whatever is still open after that is cut.
   */
  stop(graceMs: number, endStreams?: () => void): Promise<void>;
}

/**
 * Keeps count of the requests a server is answering, from before it listens, so that a stop can let them finish
 * (src/runtime.ts) instead of cutting every connection at once.
 */
export function gracefulStop(server: http.Server): GracefulStop {
  const inFlight = new Set<http.ServerResponse>();
  let stopping = false;
  // A connection whose answer ended while stopping is idle now: closed instead of kept alive for a next request.
  const closeIdle = () => setImmediate(() => server.closeIdleConnections());
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (stopping) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (stopping) closeIdle();
    });
  });

  return {
    async stop(graceMs, endStreams) {
      if (stopping || !server.listening) return;
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      server.closeIdleConnections();
      endStreams?.();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([closed, deadline]);
      clearTimeout(timer);
      server.closeAllConnections();
      await closed;
    },
  };
}
