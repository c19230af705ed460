import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createLeadServiceMcpServer, type LeadServiceMcpOptions } from './server';

export const MCP_PATH = '/mcp';

const readJson = async (req: http.IncomingMessage): Promise<unknown> => {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : undefined;
};

const refuse = (res: http.ServerResponse, status: number, message: string) =>
  res
    .writeHead(status, { 'Content-Type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));

/**
 * The MCP server over Streamable HTTP at /mcp, one MCP session (and server) per client. Whoever reaches it acts with
 * the agent's token, so it listens on loopback unless told otherwise, and answers only requests whose Host is the
 * address it listens on (a web page cannot reach it through DNS rebinding).
 */
export async function serveHttp(options: LeadServiceMcpOptions & { host?: string; port?: number }) {
  const host = options.host ?? '127.0.0.1';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];
  const server = http.createServer(async (req, res) => {
    try {
      if (!allowedHosts.includes(req.headers.host ?? '')) return refuse(res, 403, 'Host not allowed');
      if (new URL(req.url ?? '/', 'http://mcp').pathname !== MCP_PATH) return refuse(res, 404, 'Not found');
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const sessionId = req.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (!transport && !sessionId && req.method === 'POST' && isInitializeRequest(body)) {
        const opened = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, opened),
        });
        opened.onclose = () => opened.sessionId && sessions.delete(opened.sessionId);
        await createLeadServiceMcpServer(options).connect(opened);
        transport = opened;
      }
      if (!transport) return refuse(res, sessionId ? 404 : 400, sessionId ? 'Unknown session' : 'No session');
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) refuse(res, 400, err instanceof Error ? err.message : String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  allowedHosts = [`${host}:${port}`, ...(host === '127.0.0.1' ? [`localhost:${port}`] : [])];
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${MCP_PATH}`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
