import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { INITIALIZE, MCP_HEADERS, MCP_SERVER, rawRequest, startHttpServer } from './mcp-fixtures';

// Initialize and tools/list call nothing of the service: these servers need none.
const AGENT = { LEAD_SERVICE_TOKEN: 'lpat_transport-tests', LEAD_SERVICE_URL: 'http://127.0.0.1:9' };

const initialize = (url: string, headers: Record<string, string> = {}) =>
  rawRequest(url, { headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });

describe("lead-service-mcp's Streamable HTTP transport", () => {
  describe('by default', () => {
    let server: Awaited<ReturnType<typeof startHttpServer>>;
    beforeAll(async () => {
      server = await startHttpServer({ ...AGENT, MCP_HTTP_MAX_BODY_BYTES: '2048', MCP_HTTP_SESSION_IDLE_SECONDS: '1' });
    });
    afterAll(() => server?.stop());

    it('answers only requests addressed to its own host (no DNS rebinding)', async () => {
      expect((await initialize(server.url, { Host: 'attacker.example' })).status).toBe(403);
      expect((await initialize(server.url)).status).toBe(200);
    });

    it('validates Origin: none and its own origin pass, any other is 403, another port of this machine too', async () => {
      // The MCP specification's MUST. A page served from another port of the same machine (a dev server, another
      // local tool's UI) is another site: with the user's browser it would act with the agent's token.
      const { port } = new URL(server.url);
      for (const origin of [
        'http://evil.example',
        'null',
        'http://127.0.0.1.evil.example',
        'file://',
        'https://x',
        'http://127.0.0.1:5173',
        'http://localhost:5173',
        'https://[::1]:3000',
        `https://127.0.0.1:${port}`,
        `http://127.0.0.2:${port}`,
      ])
        expect([origin, (await initialize(server.url, { Origin: origin })).status]).toEqual([origin, 403]);
      for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `HTTP://LOCALHOST:${port}/`])
        expect([origin, (await initialize(server.url, { Origin: origin })).status]).toEqual([origin, 200]);
      expect((await initialize(server.url)).status).toBe(200); // no Origin: not a browser
    });

    it('bounds request bodies: 413 for a declared or a sent body over the bound, 400 for one that is not JSON', async () => {
      const declared = await rawRequest(server.url, {
        headers: { ...MCP_HEADERS, 'Content-Length': String(10 * 1024 * 1024) },
        body: INITIALIZE,
      });
      expect(declared.status).toBe(413);
      // Sent in chunks without a length: counted as it arrives, refused once past the bound.
      const streamed = await rawRequest(server.url, {
        headers: { ...MCP_HEADERS, 'Transfer-Encoding': 'chunked' },
        body: Buffer.alloc(4096, ' '),
      });
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.body).error.message).toBe('The body is larger than 2048 bytes');
      expect((await rawRequest(server.url, { headers: MCP_HEADERS, body: '{"jsonrpc":' })).status).toBe(400);
    });

    it('closes a session left idle; a request naming it then answers 404', async () => {
      const opened = await initialize(server.url);
      const sessionId = opened.headers['mcp-session-id'] as string;
      expect(sessionId).toBeTruthy();
      // The event the server logs when it closes the session (after 1 s idle here), not a fixed wait.
      await server.logged(new RegExp(`session ${sessionId} closed after sitting idle`));
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const after = await rawRequest(server.url, {
        headers: { ...MCP_HEADERS, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18' },
        body: list,
      });
      expect(after.status).toBe(404);
    });

    it('keeps a session in use: an SDK client with its stream open still lists tools after the idle time', async () => {
      const client = new Client({ name: 'kept', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const idle = await initialize(server.url);
      const idleId = idle.headers['mcp-session-id'] as string;
      // Another session, opened after this one and left idle, is closed: the idle time has passed for both.
      await server.logged(new RegExp(`session ${idleId} closed after sitting idle`));
      expect((await client.listTools()).tools.length).toBeGreaterThan(15);
      await client.close();
    });
  });

  describe('configured', () => {
    let server: Awaited<ReturnType<typeof startHttpServer>>;
    beforeAll(async () => {
      server = await startHttpServer({
        ...AGENT,
        MCP_HTTP_TOKEN: 'mcp-http-secret',
        MCP_HTTP_ALLOWED_ORIGINS: 'https://app.example, https://tools.example:8443',
      });
    });
    afterAll(() => server?.stop());

    it('with MCP_HTTP_TOKEN, a request without the bearer or with another answers 401', async () => {
      const none = await initialize(server.url);
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer');
      for (const header of [
        'Bearer mcp-http-secreT',
        'Bearer mcp-http-secret2',
        'Basic bWNwLWh0dHAtc2VjcmV0',
        'Bearer',
      ])
        expect([header, (await initialize(server.url, { Authorization: header })).status]).toEqual([header, 401]);
      const client = new Client({ name: 'bearer', version: '1' });
      const headers = { Authorization: 'Bearer mcp-http-secret' };
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('wait_for_job');
      await client.close();
    });

    it('allows the configured origins and its own, no other', async () => {
      const auth = { Authorization: 'Bearer mcp-http-secret' };
      const own = new URL(server.url).origin;
      for (const origin of ['https://app.example', 'https://tools.example:8443', 'https://APP.example:443', own])
        expect([origin, (await initialize(server.url, { ...auth, Origin: origin })).status]).toEqual([origin, 200]);
      for (const origin of ['https://tools.example', 'http://app.example', 'http://localhost:6274'])
        expect([origin, (await initialize(server.url, { ...auth, Origin: origin })).status]).toEqual([origin, 403]);
    });
  });

  it('refuses sessions past MCP_HTTP_MAX_SESSIONS with 503', async () => {
    const server = await startHttpServer({ ...AGENT, MCP_HTTP_MAX_SESSIONS: '1' });
    try {
      expect((await initialize(server.url)).status).toBe(200);
      const refused = await initialize(server.url);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('60');
    } finally {
      await server.stop();
    }
  });

  it('refuses to listen beyond loopback without MCP_HTTP_TOKEN', async () => {
    const run = spawn(MCP_SERVER, ['--http', '--host', '0.0.0.0', '--port', '0'], {
      env: { ...process.env, ...AGENT },
    });
    let stderr = '';
    run.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => run.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('listening on 0.0.0.0, beyond loopback, needs MCP_HTTP_TOKEN');
  });

  it('refuses to start with an allowed origin that is none (a host without its scheme)', async () => {
    const run = spawn(MCP_SERVER, ['--http', '--port', '0'], {
      env: { ...process.env, ...AGENT, MCP_HTTP_ALLOWED_ORIGINS: 'https://app.example, localhost:5173' },
    });
    let stderr = '';
    run.stderr.on('data', (chunk) => (stderr += chunk));
    expect(await new Promise((resolve) => run.on('exit', resolve))).toBe(2);
    expect(stderr).toContain('MCP_HTTP_ALLOWED_ORIGINS: localhost:5173 is not an origin (scheme://host[:port])');
  });
});
