/**
 * lead-service-mcp: the MCP server on stdio (what MCP clients start), or with --http on Streamable HTTP.
 * LEAD_SERVICE_TOKEN (the agent's access token) and LEAD_SERVICE_URL (default http://127.0.0.1:8080) configure it.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serveHttp } from './http';
import { createLeadServiceMcpServer } from './server';

const USAGE = `Usage: lead-service-mcp [--http [--host 127.0.0.1] [--port 3333]]
Environment: LEAD_SERVICE_TOKEN (an agent access token, lpat_…), LEAD_SERVICE_URL (default http://127.0.0.1:8080)`;

export async function main(argv = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      http: { type: 'boolean' },
      host: { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const token = process.env.LEAD_SERVICE_TOKEN;
  if (values.help || !token) {
    console.error(values.help ? USAGE : `LEAD_SERVICE_TOKEN is not set\n${USAGE}`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const options = { baseUrl: process.env.LEAD_SERVICE_URL || 'http://127.0.0.1:8080', token };
  if (!values.http) return void (await createLeadServiceMcpServer(options).connect(new StdioServerTransport()));
  const served = await serveHttp({ ...options, host: values.host, port: values.port ? Number(values.port) : 3333 });
  // Standard error, as on stdio: standard output stays free for the protocol.
  console.error(`lead-service-mcp listening on ${served.url}`);
  const stop = () => void served.close().then(() => process.exit(0));
  process.once('SIGINT', stop).once('SIGTERM', stop);
}
