/**
 * lead-service-mcp: the MCP server on stdio (what MCP clients start), or with --http on Streamable HTTP.
 * Configured by the environment (USAGE lists every variable).
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { HTTP_DEFAULTS, isLoopback, originOf, serveHttp } from './http';
import { PACKAGE } from './package-info';
import { createLeadServiceMcpServer } from './server';

const USAGE = `Usage: lead-service-mcp [--http [--host 127.0.0.1] [--port 3333]] [--version] [--help]

Environment:
  LEAD_SERVICE_TOKEN               the agent's access token (lpat_…); every tool call acts with it (required)
  LEAD_SERVICE_URL                 the service's origin (default http://127.0.0.1:8080)
With --http (Streamable HTTP at http://<host>:<port>/mcp):
  MCP_HTTP_TOKEN                   a secret every request must send as "Authorization: Bearer <it>"; required to
                                   listen beyond loopback
  MCP_HTTP_ALLOWED_ORIGINS         browser origins allowed besides its own (http://127.0.0.1:<port>), comma-separated,
                                   e.g. http://localhost:6274 for the MCP Inspector; no other is, another port of
                                   this machine neither (a request without Origin, not from a browser, always is)
  MCP_HTTP_ALLOWED_HOSTS           Host header values allowed besides the listening address, comma-separated
  MCP_HTTP_SESSION_IDLE_SECONDS    close a session idle this long (default ${HTTP_DEFAULTS.sessionIdleMs / 1000})
  MCP_HTTP_MAX_SESSIONS            sessions open at once (default ${HTTP_DEFAULTS.maxSessions})
  MCP_HTTP_MAX_BODY_BYTES          largest request body (default ${HTTP_DEFAULTS.maxBodyBytes})`;

class UsageError extends Error {}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The browser origins MCP_HTTP_ALLOWED_ORIGINS names, each checked to be one. */
function origins(value: string | undefined): string[] {
  return list(value).map((entry) => {
    if (!originOf(entry))
      throw new UsageError(`MCP_HTTP_ALLOWED_ORIGINS: ${entry} is not an origin (scheme://host[:port])`);
    return entry;
  });
}

/** A positive whole number from the environment, or undefined when unset (an empty variable counts as unset). */
function positive(env: NodeJS.ProcessEnv, name: string, scale = 1): number | undefined {
  const value = env[name];
  if (!value) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name} must be a positive whole number`);
  return n * scale;
}

function portOf(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError('--port must be a port number (0: any free one)');
  return n;
}

export async function main(argv = process.argv.slice(2), env = process.env): Promise<void> {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        version: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    // Standard output carries the protocol on stdio; --version and --help are the only things printed there.
    if (values.version) return void console.log(`${PACKAGE.name} ${PACKAGE.version}`);
    if (values.help) return void console.log(USAGE);
    const token = env.LEAD_SERVICE_TOKEN;
    if (!token) throw new UsageError('LEAD_SERVICE_TOKEN is not set');
    const options = { baseUrl: env.LEAD_SERVICE_URL || 'http://127.0.0.1:8080', token };
    if (!values.http) return void (await createLeadServiceMcpServer(options).connect(new StdioServerTransport()));
    const host = values.host ?? '127.0.0.1';
    if (!isLoopback(host) && !env.MCP_HTTP_TOKEN)
      throw new UsageError(`listening on ${host}, beyond loopback, needs MCP_HTTP_TOKEN`);
    const served = await serveHttp({
      ...options,
      host,
      port: values.port === undefined ? 3333 : portOf(values.port),
      bearer: env.MCP_HTTP_TOKEN || undefined,
      allowedOrigins: origins(env.MCP_HTTP_ALLOWED_ORIGINS),
      allowedHosts: list(env.MCP_HTTP_ALLOWED_HOSTS),
      sessionIdleMs: positive(env, 'MCP_HTTP_SESSION_IDLE_SECONDS', 1000),
      maxSessions: positive(env, 'MCP_HTTP_MAX_SESSIONS'),
      maxBodyBytes: positive(env, 'MCP_HTTP_MAX_BODY_BYTES'),
      onSessionExpired: (id) => console.error(`session ${id} closed after sitting idle`),
    });
    // Standard error, as on stdio: standard output stays free for the protocol.
    console.error(`lead-service-mcp listening on ${served.url}`);
    const stop = () => void served.close().then(() => process.exit(0));
    process.once('SIGINT', stop).once('SIGTERM', stop);
  } catch (err) {
    // parseArgs refuses an unknown option or a missing value with an ERR_PARSE_ARGS_… error.
    const parseRefused = String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    if (!(err instanceof UsageError) && !parseRefused) throw err;
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exitCode = 2;
  }
}
