import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createLeadServiceMcpServer, type LeadServiceMcpOptions } from './server';

export const MCP_PATH = '/mcp';

export interface HttpServeOptions extends LeadServiceMcpOptions {
  /** The address to listen on (default 127.0.0.1); beyond loopback a bearer is required. */
  host?: string;
  port?: number;
  /** A token every request must present as `Authorization: Bearer …` (MCP_HTTP_TOKEN); none is asked when unset. */
  bearer?: string;
  /**
   * Browser origins allowed besides the transport's own (MCP_HTTP_ALLOWED_ORIGINS), e.g. `https://app.example` or
   * `http://localhost:6274` (the MCP Inspector): no other, another port of this machine neither.
   */
  allowedOrigins?: string[];
  /** Host header values allowed besides the listening address (MCP_HTTP_ALLOWED_HOSTS), e.g. `mcp.internal:3333`. */
  allowedHosts?: string[];
  /** A session without a request or an open stream for this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Sessions open at once; an initialize beyond them answers 503 (default 100). */
  maxSessions?: number;
  /** A request body larger than this answers 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /** Told when an idle session is closed (the command line logs it). */
  onSessionExpired?: (sessionId: string) => void;
}

export const HTTP_DEFAULTS = { sessionIdleMs: 30 * 60_000, maxSessions: 100, maxBodyBytes: 1024 * 1024 };

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
export const isLoopback = (hostname: string) =>
  LOOPBACK_HOSTNAMES.has(hostname) || hostname === '::1' || /^127(?:\.\d{1,3}){3}$/.test(hostname);

/** An origin as a browser serializes it (scheme and host lower-case, no default port), or undefined for no origin. */
export function originOf(text: string): string | undefined {
  try {
    const { origin } = new URL(text);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined; // `null` (a sandboxed frame, a file) and anything else that is no origin
  }
}

/**
 * No Origin (a client that is not a browser), or one of `allowed`. Being on this machine is no reason: a page from
 * another port of it (a dev server, another tool's UI, a local file server) is another site, and DNS rebinding is
 * stopped by the Host check anyway.
 */
function originAllowed(origin: string | undefined, allowed: Set<string>): boolean {
  if (origin === undefined) return true;
  const named = originOf(origin);
  return named !== undefined && allowed.has(named);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compared in constant time: the digests have one length whatever was sent. */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const presented = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(presented), expected);
}

class BodyTooLarge extends Error {}

/** The body as JSON, refusing more than `limit` bytes (declared or sent) before buffering them. */
async function readJson(req: http.IncomingMessage, limit: number): Promise<unknown> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

const refuse = (res: http.ServerResponse, status: number, message: string, headers: http.OutgoingHttpHeaders = {}) =>
  res
    .writeHead(status, { 'Content-Type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));

interface Session {
  transport: StreamableHTTPServerTransport;
  /** Requests and streams of the session still open. */
  open: number;
  lastSeen: number;
}

/**
 * The MCP server over Streamable HTTP at /mcp, one MCP session (and server) per client. Whoever reaches it acts with
 * the agent's token, so every request passes, in order: its Host must be the address it listens on (a web page
 * cannot reach it through DNS rebinding, 403); its Origin, when it has one, must be its own or a configured one (the
 * MCP specification's MUST, 403: a page of another site, another port of this machine included, cannot drive it);
 * with a bearer configured, `Authorization: Bearer` must carry it (401); its body must fit the bound (413). Sessions
 * are bounded in number (503) and closed after sitting idle; a request naming a closed session answers 404, and its
 * client initializes a new one (as the specification says).
 */
export async function serveHttp(options: HttpServeOptions) {
  const host = options.host ?? '127.0.0.1';
  const { sessionIdleMs, maxSessions, maxBodyBytes } = { ...HTTP_DEFAULTS, ...definedOf(options) };
  const configuredOrigins = (options.allowedOrigins ?? []).map((o) => {
    const origin = originOf(o);
    if (!origin) throw new Error(`not an origin: ${o}`);
    return origin;
  });
  let allowedOrigins = new Set<string>();
  const bearer = options.bearer ? digest(options.bearer) : undefined;
  const sessions = new Map<string, Session>();
  let allowedHosts: string[] = [];

  /** Counts the request (or stream) as open until its response ends: a session is idle only with none open. */
  const track = (session: Session, res: http.ServerResponse) => {
    session.open++;
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  };

  const server = http.createServer(async (req, res) => {
    try {
      if (!allowedHosts.includes(req.headers.host ?? '')) return refuse(res, 403, 'Host not allowed');
      if (!originAllowed(req.headers.origin, allowedOrigins)) return refuse(res, 403, 'Origin not allowed');
      if (new URL(req.url ?? '/', 'http://mcp').pathname !== MCP_PATH) return refuse(res, 404, 'Not found');
      if (bearer && !bearerMatches(req.headers.authorization, bearer))
        return refuse(res, 401, 'A bearer token is required', { 'WWW-Authenticate': 'Bearer' });
      let body: unknown;
      if (req.method === 'POST')
        try {
          body = await readJson(req, maxBodyBytes);
        } catch (err) {
          if (err instanceof BodyTooLarge)
            return refuse(res, 413, `The body is larger than ${maxBodyBytes} bytes`, { Connection: 'close' });
          return refuse(res, 400, 'Parse error: the body is not JSON');
        }
      const sessionId = req.headers['mcp-session-id'];
      let session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (!session && !sessionId && req.method === 'POST' && isInitializeRequest(body)) {
        if (sessions.size >= maxSessions) return refuse(res, 503, 'Too many sessions', { 'Retry-After': '60' });
        const opened: Session = {
          open: 0,
          lastSeen: Date.now(),
          transport: new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => void sessions.set(id, opened),
          }),
        };
        opened.transport.onclose = () => opened.transport.sessionId && sessions.delete(opened.transport.sessionId);
        await createLeadServiceMcpServer(options).connect(opened.transport);
        session = opened;
      }
      if (!session) return refuse(res, sessionId ? 404 : 400, sessionId ? 'Unknown session' : 'No session');
      track(session, res);
      await session.transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) refuse(res, 400, err instanceof Error ? err.message : String(err));
    }
  });

  const sweep = setInterval(
    () => {
      const idleSince = Date.now() - sessionIdleMs;
      for (const [id, session] of sessions)
        if (session.open === 0 && session.lastSeen < idleSince) {
          sessions.delete(id);
          void session.transport.close();
          options.onSessionExpired?.(id);
        }
    },
    Math.max(250, Math.min(sessionIdleMs / 4, 60_000)),
  ).unref();

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const named = host.includes(':') ? `[${host}]` : host;
  const ownHosts = [`${named}:${port}`, ...(isLoopback(host) ? [`localhost:${port}`] : [])];
  allowedHosts = [...ownHosts, ...(options.allowedHosts ?? [])];
  // Its own origin (it serves no page, but a request from it is no other site's) and the configured ones.
  allowedOrigins = new Set([...ownHosts.map((own) => `http://${own}`), ...configuredOrigins]);
  return {
    url: `http://${named}:${port}${MCP_PATH}`,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The options that are set (an undefined one keeps its default). */
function definedOf(options: HttpServeOptions) {
  const { sessionIdleMs, maxSessions, maxBodyBytes } = options;
  return Object.fromEntries(
    Object.entries({ sessionIdleMs, maxSessions, maxBodyBytes }).filter(([, v]) => v !== undefined),
  ) as Partial<typeof HTTP_DEFAULTS>;
}
