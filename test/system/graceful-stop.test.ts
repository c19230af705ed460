import http from 'node:http';
import { ADMIN, createClient, startTestApi } from '../support/harness';

/** A raw request on a connection of its own: its answer's status and text once it ends. */
function rawRequest(url: string, opts: http.RequestOptions, onStart?: (req: http.ClientRequest) => void) {
  return new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
    const req = http.request(url, { agent: false, ...opts }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text, connection: res.headers.connection }));
      res.on('error', reject);
    });
    req.on('error', reject);
    onStart?.(req);
  });
}

describe('stopping the API', () => {
  it('refuses new connections, lets a request in flight finish, ends event streams with a retry hint', async () => {
    const api = await startTestApi({ SHUTDOWN_GRACE_MS: '10000' });
    let stopped = false;
    let stopCalled = false;
    try {
      const admin = await api.login(ADMIN.email, ADMIN.password);
      const acme = await createClient(api, admin, 'Acme Stop');

      // An event stream that is open when the stop begins.
      let streamed = '';
      let connected: () => void = () => undefined;
      const streamOpen = new Promise<void>((resolve) => (connected = resolve));
      const streamEnded = rawRequest(
        `${api.url}/api/v1/events/stream?token=${encodeURIComponent(acme.triple)}`,
        {},
        (req) =>
          req
            .on('response', (res) =>
              res.on('data', (d) => {
                streamed += d;
                if (streamed.includes('event: connected')) connected();
              }),
            )
            .end(),
      );
      await streamOpen;

      // A login whose body is half sent when the stop begins: its answer comes after the stop started.
      const body = JSON.stringify({ email: ADMIN.email, password: ADMIN.password });
      const loginArrived = new Promise<void>((resolve) =>
        api.rt.server.prependListener('request', (req: http.IncomingMessage) => {
          if (req.url?.endsWith('/auth/login')) resolve();
        }),
      );
      let sendRest: () => void = () => undefined;
      const login = rawRequest(
        `${api.url}/api/v1/auth/login`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (req) => {
          req.write(body.slice(0, 10));
          sendRest = () => req.end(body.slice(10));
        },
      );
      await loginArrived; // the request has reached the server (its head; the body is still coming)

      stopCalled = true;
      // The runtime's own stop, as SIGTERM calls it (the harness's would drop the database first).
      const stopping = api.rt.stop().then(() => (stopped = true));

      // The stream ended at once, telling its caller when to reconnect (to another process, with Last-Event-ID).
      const stream = await streamEnded;
      expect(stopped).toBe(false); // the stop has begun, and waits for the login in flight
      expect(stream.status).toBe(200);
      expect(stream.text).toMatch(/\nretry: \d+\n/);

      // No new connection is accepted.
      await expect(rawRequest(`${api.url}/healthz`, {}, (req) => req.end())).rejects.toThrow(/ECONNREFUSED/);

      sendRest();
      const answered = await login;
      expect(answered.status).toBe(200); // finished with the engines still up
      expect(JSON.parse(answered.text).access_token).toEqual(expect.any(String));
      expect(answered.connection).toBe('close');
      await stopping;
      expect(stopped).toBe(true);
    } finally {
      if (!stopCalled) await api.stop();
    }
  });
});
