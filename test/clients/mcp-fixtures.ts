import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const MCP_SERVER = path.resolve(__dirname, '../../node_modules/.bin/lead-service-mcp');

export type Transport = 'stdio' | 'Streamable HTTP';

/** `lead-service-mcp --http` as its own process, with what it writes to standard error. */
export async function startHttpServer(env: Record<string, string>, args: string[] = []) {
  const server: ChildProcess = spawn(MCP_SERVER, ['--http', '--port', '0', ...args], {
    env: { ...process.env, ...env },
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    server.stderr!.on('data', (chunk) => {
      output += chunk;
      const listening = /listening on (\S+)/.exec(output);
      if (listening) resolve(listening[1]);
    });
    server.on('exit', (code) => reject(new Error(`lead-service-mcp exited ${code}: ${output}`)));
  });
  return {
    url,
    stderr: () => output,
    /** Resolves once standard error has a line matching `pattern` (the event, not a fixed wait). */
    logged: (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve) => {
        const check = () => {
          const found = pattern.exec(output);
          if (found) server.stderr!.off('data', check);
          if (found) resolve(found);
        };
        server.stderr!.on('data', check);
        check();
      }),
    stop: () => new Promise<void>((resolve) => (server.once('exit', () => resolve()), server.kill('SIGTERM'))),
  };
}

/**
 * Every message the client's transport receives from now on, in the order it arrived, taken before the SDK's client
 * dispatches it: what the server sent. The SDK's client can drop a progress notification the server sent before its
 * answer (it dispatches notifications a microtask late, and an answer read in the same chunk retires the token
 * first: modelcontextprotocol/typescript-sdk#2580), so what `onprogress` saw is not all the server sent.
 */
function receivedBy(transport: SdkTransport): JSONRPCMessage[] {
  const received: JSONRPCMessage[] = [];
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    received.push(message);
    dispatch?.(message, extra);
  };
  return received;
}

/** The MCP server as an MCP client starts it (its own process), and the SDK's client connected to it. */
export async function connectMcp(transport: Transport, env: Record<string, string>) {
  const client = new Client({ name: 'lead-service-test', version: '1.0.0' });
  if (transport === 'stdio') {
    const stdio = new StdioClientTransport({ command: MCP_SERVER, env: { ...process.env, ...env } as never });
    await client.connect(stdio);
    return { client, received: receivedBy(stdio), stop: () => client.close() };
  }
  const server = await startHttpServer(env);
  const http = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(http);
  return {
    client,
    received: receivedBy(http),
    url: server.url,
    stop: async () => {
      await client.close();
      await server.stop();
    },
  };
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request sent with exactly the headers given (fetch cannot set Host, and resolves `.` segments): what a browser
 * page, a DNS-rebinding one or another local process sends.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string } = {},
): Promise<RawAnswer> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname, port, path: options.path ?? pathname, method: options.method ?? 'POST', headers: options.headers },
      (res) => {
        let body = '';
        res
          .on('data', (chunk) => (body += chunk))
          .on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    // The server may answer (413) and close before the body is sent whole: the answer is what counts.
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(err)));
    req.end(options.body);
  });
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** What a Streamable HTTP client sends with a JSON-RPC message. */
export const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
