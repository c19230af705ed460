import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { useTestApi } from '../support/harness';
import { agentOf, SMALL_JOB, SMALL_JOB_PLACES } from './client-fixtures';

const SERVER = path.resolve(__dirname, '../../node_modules/.bin/lead-service-mcp');

type Transport = 'stdio' | 'Streamable HTTP';

/** The MCP server as an MCP client starts it (its own process), and the SDK's client connected to it. */
async function connect(transport: Transport, env: Record<string, string>) {
  const client = new Client({ name: 'lead-service-test', version: '1.0.0' });
  if (transport === 'stdio') {
    await client.connect(new StdioClientTransport({ command: SERVER, env: { ...process.env, ...env } as never }));
    return { client, stop: () => client.close() };
  }
  const server: ChildProcess = spawn(SERVER, ['--http', '--port', '0'], { env: { ...process.env, ...env } });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    server.stderr!.on('data', (chunk) => {
      output += chunk;
      const listening = /listening on (\S+)/.exec(output);
      if (listening) resolve(listening[1]);
    });
    server.on('exit', (code) => reject(new Error(`lead-service-mcp exited ${code}: ${output}`)));
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    url,
    stop: async () => {
      await client.close();
      server.kill('SIGTERM');
    },
  };
}

const structured = (result: Awaited<ReturnType<Client['callTool']>>) => result.structuredContent as Record<string, any>;

describe.each<Transport>(['stdio', 'Streamable HTTP'])('lead-service-mcp over %s against the service', (transport) => {
  const ctx = useTestApi();
  let session: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    const agent = await agentOf(ctx.api, ctx.admin, 'Model', transport === 'stdio' ? 61 : 62);
    session = await connect(transport, { LEAD_SERVICE_URL: ctx.api.url, LEAD_SERVICE_TOKEN: agent.token });
  });
  afterAll(() => session?.stop());

  it("lists the agent's operations as tools, each input schema taken from the operation's", async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'submit_maps_scrape_job', 'submit_research_job', 'get_job_status', 'get_job_results', 'pause_research_job',
        'resume_research_job', 'cancel_job', 'resolve_pin', 'search_pins', 'preview_pin', 'confirm_pin', 'proxy_maps',
        'proxy_parcel_tracking', 'proxy_messaging', 'get_access_token_status', 'wait_for_job',
      ]),
    ); // prettier-ignore
    const submit = tools.find((t) => t.name === 'submit_maps_scrape_job')!;
    expect(submit.inputSchema).toMatchObject({
      type: 'object',
      required: ['query', 'country_code'],
      additionalProperties: false,
      properties: { country_code: { type: 'string', pattern: '^[A-Z]{2}$' }, max_locations: { maximum: 10000 } },
    });
    const results = tools.find((t) => t.name === 'get_job_results')!;
    expect(results.inputSchema.required).toEqual(['job_id']);
  });

  it('submits a job, reports its progress as notifications from the event stream, and reads its results', async () => {
    const submitted = await session.client.callTool({ name: 'submit_maps_scrape_job', arguments: SMALL_JOB });
    expect(submitted.isError).toBeFalsy();
    const jobId = structured(submitted).job_id as string;

    const progress: Progress[] = [];
    const finished = await session.client.callTool({ name: 'wait_for_job', arguments: { job_id: jobId } }, undefined, {
      onprogress: (p) => progress.push(p),
      timeout: 45_000,
    });
    expect(structured(finished)).toMatchObject({ kind: 'maps-scrape', job: { job_id: jobId, status: 'completed' } });
    expect(progress.length).toBeGreaterThan(0);
    // The last notification is the job.completed event's, with the job's status read after it.
    expect(progress.at(-1)).toMatchObject({ progress: 2, total: 2, message: 'completed (job.completed)' });
    expect(progress.map((p) => p.progress)).toEqual([...new Set(progress.map((p) => p.progress))].sort());

    const results = await session.client.callTool({
      name: 'get_job_results',
      arguments: { job_id: jobId, page_size: 100 },
    });
    expect(structured(results).total).toBe(SMALL_JOB_PLACES().length);
  }, 60_000);

  it("answers the service's refusal as a tool error with its status and detail; the token's status", async () => {
    const missing = await session.client.callTool({
      name: 'get_job_status',
      arguments: { job_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(missing.isError).toBe(true);
    expect(structured(missing)).toEqual({ status: 404, detail: 'Job not found' });

    const token = await session.client.callTool({ name: 'get_access_token_status', arguments: {} });
    expect(structured(token)).toMatchObject({ valid: true, token: { scopes: ['jobs:read', 'jobs:submit'] } });
  });

  if (transport === 'Streamable HTTP')
    it('answers only requests addressed to its own host (no DNS rebinding)', async () => {
      const { url } = session as { url: string };
      // fetch cannot set Host; node:http sends what a browser sends for a name rebound to loopback.
      const status = await new Promise<number | undefined>((resolve, reject) =>
        http
          .request(url, { method: 'POST', headers: { Host: 'attacker.example' } }, (res) => resolve(res.statusCode))
          .on('error', reject)
          .end('{}'),
      );
      expect(status).toBe(403);
    });
});
