import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { eventually, useTestApi } from '../support/harness';
import { agentOf, SMALL_JOB, SMALL_JOB_PLACES, WATCHED_JOB, WATCHED_JOB_PLACES } from './client-fixtures';
import { connectMcp, type Transport } from './mcp-fixtures';

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const structured = (result: CallResult) => result.structuredContent as Record<string, any>;
const textOf = (result: CallResult) => (result.content as { type: string; text: string }[])[0].text;
/** A tool error's JSON (its text: an error carries no structuredContent, which must match the output schema). */
const errorOf = (result: CallResult) => {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return JSON.parse(textOf(result));
};

// Every call goes through the SDK's own client, which checks each result's structuredContent against the output
// schema the tool listed (after listTools): a result that does not match fails the call.
describe.each<Transport>(['stdio', 'Streamable HTTP'])('lead-service-mcp over %s against the service', (transport) => {
  const ctx = useTestApi();
  let session: Awaited<ReturnType<typeof connectMcp>>;
  let jobId = '';
  beforeAll(async () => {
    const agent = await agentOf(ctx.api, ctx.admin, 'Model', transport === 'stdio' ? 61 : 62);
    session = await connectMcp(transport, { LEAD_SERVICE_URL: ctx.api.url, LEAD_SERVICE_TOKEN: agent.token });
    await session.client.listTools();
  });
  afterAll(() => session?.stop());

  it("lists the agent's operations as tools, each input schema taken from the operation's", async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'submit_maps_scrape_job', 'submit_research_job', 'get_job_status', 'get_job_results', 'pause_research_job',
        'resume_research_job', 'cancel_job', 'resolve_pin', 'search_pins', 'preview_pin', 'confirm_pin', 'proxy_maps',
        'proxy_parcel_tracking', 'proxy_messaging', 'get_access_token_status', 'wait_for_job', 'create_watch',
        'list_watches', 'get_watch', 'update_watch', 'pause_watch', 'resume_watch', 'trigger_watch', 'delete_watch',
        'list_watch_runs',
      ]),
    ); // prettier-ignore
    const submit = tools.find((t) => t.name === 'submit_maps_scrape_job')!;
    expect(submit).toMatchObject({ title: 'Submit a maps-scrape job', annotations: { readOnlyHint: false } });
    expect(submit.inputSchema).toMatchObject({
      type: 'object',
      required: ['query', 'country_code'],
      additionalProperties: false,
      properties: { country_code: { type: 'string', pattern: '^[A-Z]{2}$' }, max_locations: { maximum: 10000 } },
    });
    expect(submit.outputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['job_id']) });
    const results = tools.find((t) => t.name === 'get_job_results')!;
    expect(results.inputSchema.required).toEqual(['job_id']);
  });

  it('submits a job, reports its progress as notifications from the event stream, and reads its results', async () => {
    const submitted = await session.client.callTool({ name: 'submit_maps_scrape_job', arguments: SMALL_JOB });
    expect(submitted.isError).toBeFalsy();
    jobId = structured(submitted).job_id as string;

    const progress: Progress[] = [];
    const from = session.received.length;
    const finished = await session.client.callTool({ name: 'wait_for_job', arguments: { job_id: jobId } }, undefined, {
      onprogress: (p) => progress.push(p),
      timeout: 45_000,
    });
    expect(structured(finished)).toMatchObject({
      kind: 'maps-scrape',
      job: { job_id: jobId, status: 'completed', progress: { done: 2, total: 2 } },
    });
    // What the server sent for this call, in order: its progress notifications, then its answer (the only call in
    // flight). The SDK's client may drop the last notification when the answer arrives with it (see receivedBy).
    const sent = session.received.slice(from);
    const answeredAt = sent.findIndex((m) => 'result' in m);
    const notified = sent
      .map((m, at) => ({ m, at }))
      .filter(({ m }) => 'method' in m && m.method === 'notifications/progress');
    expect(notified.length).toBeGreaterThan(0);
    expect(notified.every(({ at }) => at < answeredAt)).toBe(true);
    const reported = notified.map(({ m }) => {
      const { progress: done, total, message } = (m as unknown as { params: Progress }).params;
      return { progress: done, total, message };
    });
    // The last notification says 2 of 2: the job.completed event's, or the status read between events that saw the
    // last unit done before the job was marked completed (progress must grow, so the event then sends none).
    expect(reported.at(-1)).toMatchObject({
      progress: 2,
      total: 2,
      message: expect.stringMatching(/^(completed|processing)/),
    });
    expect(reported.map((p) => p.progress)).toEqual([...new Set(reported.map((p) => p.progress))].sort());
    // The client's callback saw them in the same order, all but perhaps the last.
    expect(progress.length).toBeGreaterThanOrEqual(reported.length - 1);
    expect(progress).toEqual(reported.slice(0, progress.length));

    const results = await session.client.callTool({
      name: 'get_job_results',
      arguments: { job_id: jobId, page_size: 100 },
    });
    expect(structured(results).total).toBe(SMALL_JOB_PLACES().length);
    // The text a model reads is the same document.
    expect(JSON.parse(textOf(results))).toEqual(structured(results));
    const status = await session.client.callTool({ name: 'get_job_status', arguments: { job_id: jobId } });
    expect(structured(status)).toMatchObject({ job_id: jobId, status: 'completed' });
  }, 60_000);

  it("reads the job's results a page at a time as resources of a template", async () => {
    const { resourceTemplates } = await session.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'lead-service://jobs/{job_id}/results{?page,page_size}',
      'lead-service://research/{research_id}/results{?page,page_size}',
    ]);
    const places = SMALL_JOB_PLACES();
    const pageSize = Math.ceil(places.length / 3);
    const pages = [];
    for (let page = 1; page <= Math.ceil(places.length / pageSize); page++) {
      const uri = `lead-service://jobs/${jobId}/results?page=${page}&page_size=${pageSize}`;
      const read = await session.client.readResource({ uri });
      expect(read.contents).toEqual([{ uri, mimeType: 'application/json', text: expect.any(String) }]);
      pages.push(JSON.parse((read.contents[0] as { text: string }).text));
    }
    expect(pages.map((p) => [p.page, p.total])).toEqual(pages.map((_, i) => [i + 1, places.length]));
    const names = pages.flatMap((p) => p.results.map((r: { name: string }) => r.name));
    expect(names.sort()).toEqual(places.map((p) => p.name).sort());
    const missing = `lead-service://jobs/00000000-0000-4000-8000-000000000000/results`;
    await expect(session.client.readResource({ uri: missing })).rejects.toMatchObject({ code: -32002 });
    await expect(session.client.readResource({ uri: 'lead-service://elsewhere/x' })).rejects.toMatchObject({
      code: -32002,
    });
  });

  it('research: the folded rule is still the service’s (422 for both forms), one form submits', async () => {
    const both = await session.client.callTool({
      name: 'submit_research_job',
      arguments: { companies: [{ name: 'Bakkerij de Zon' }], source_job_id: jobId },
    });
    expect(errorOf(both)).toMatchObject({ status: 422 });
    const neither = await session.client.callTool({ name: 'submit_research_job', arguments: {} });
    expect(errorOf(neither)).toMatchObject({ status: 422 });
    const one = await session.client.callTool({
      name: 'submit_research_job',
      arguments: { companies: [{ name: 'Bakkerij de Zon', domain: 'dezon.example' }] },
    });
    const researchId = structured(one).research_id;
    const status = await session.client.callTool({
      name: 'get_research_status',
      arguments: { research_id: researchId },
    });
    expect(structured(status)).toMatchObject({ research_id: researchId });
  });

  it('keeps a watch: created (two forms folded), run now, its run read with its new leads, deleted', async () => {
    const both = await session.client.callTool({
      name: 'create_watch',
      arguments: {
        name: 'Both kinds',
        maps_scrape: SMALL_JOB,
        research: { companies: [{ name: 'Bakkerij de Zon' }] },
        cadence: { interval_seconds: 86_400 },
      },
    });
    expect(errorOf(both)).toMatchObject({ status: 422 });
    const created = await session.client.callTool({
      name: 'create_watch',
      arguments: {
        name: 'Florists',
        maps_scrape: WATCHED_JOB,
        cadence: { cron: '0 6 * * *', time_zone: 'Europe/Paris' },
      },
    });
    const watch = structured(created);
    expect(watch).toMatchObject({ state: 'active', next_runs: expect.any(Array) });
    const id = { watch_id: watch.watch_id };
    expect(structured(await session.client.callTool({ name: 'trigger_watch', arguments: id }))).toMatchObject(id);
    const run = await eventually(async () => {
      const runs = structured(await session.client.callTool({ name: 'list_watch_runs', arguments: id })).runs;
      return runs[0]?.status === 'completed' ? runs[0] : undefined;
    }, 60_000);
    expect(run.new_leads_count).toBe(WATCHED_JOB_PLACES().length);
    const read = structured(await session.client.callTool({ name: 'get_watch', arguments: id }));
    expect(read.last_run).toEqual(run);
    const paused = await session.client.callTool({ name: 'pause_watch', arguments: id });
    expect(structured(paused)).toMatchObject({ state: 'paused', next_runs: [] });
    const updated = await session.client.callTool({ name: 'update_watch', arguments: { ...id, webhook_url: null } });
    expect(structured(updated)).toMatchObject({ webhook_url: null });
    const listed = structured(await session.client.callTool({ name: 'list_watches', arguments: {} }));
    expect(listed.watches.map((w: { watch_id: string }) => w.watch_id)).toContain(id.watch_id);
    expect(structured(await session.client.callTool({ name: 'delete_watch', arguments: id }))).toEqual({
      ...id,
      deleted: true,
    });
    expect(errorOf(await session.client.callTool({ name: 'get_watch', arguments: id }))).toMatchObject({ status: 404 });
  }, 90_000);

  it("answers the service's refusal as a tool error with its status and detail; the token's status", async () => {
    const missing = await session.client.callTool({
      name: 'get_job_status',
      arguments: { job_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(errorOf(missing)).toEqual({ status: 404, detail: 'Job not found' });

    const token = await session.client.callTool({ name: 'get_access_token_status', arguments: {} });
    expect(structured(token)).toMatchObject({ valid: true, token: { scopes: ['jobs:read', 'jobs:submit'] } });
    const name = await session.client.callTool({
      name: 'preview_pin',
      arguments: { name: 'bakkerij-de-maan', country_code: 'NL' },
    });
    expect(structured(name)).toMatchObject({ is_available: true });
  });

  it('refuses a path argument with `.` or `..` segments before calling: no operation outside the tools', async () => {
    // fetch would resolve these segments: ../../../auth/pat/status from the maps relay is another operation.
    const refusals: [string, Record<string, unknown>, string][] = [
      ['proxy_maps', { path: '../../../auth/pat/status', params: {} }, 'path'],
      ['proxy_maps', { path: 'geocode/%2e%2E/json', params: {} }, 'path'],
      ['proxy_maps', { path: 'geocode/./json', params: {} }, 'path'],
      ['get_job_status', { job_id: '..' }, 'job_id'],
      ['cancel_job', { job_id: '%2e%2e' }, 'job_id'],
    ];
    for (const [name, args, input] of refusals) {
      const result = await session.client.callTool({ name, arguments: args });
      expect([name, args, errorOf(result)]).toEqual([
        name,
        args,
        { detail: `${input} must not have a \`.\` or \`..\` segment (percent-encoded or not)` },
      ]);
    }
  });
});

describe('lead-service-mcp in front of an answer that is not JSON', () => {
  // A proxy between the MCP server and the service answering its own error page (no service needed).
  let upstream: http.Server;
  let session: Awaited<ReturnType<typeof connectMcp>>;
  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      if (req.url?.includes('/jobs/')) res.writeHead(502, { 'Content-Type': 'text/plain' }).end('upstream exploded');
      else res.writeHead(503, { 'Content-Type': 'application/json' }).end('<html>not json after all</html>');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    session = await connectMcp('stdio', { LEAD_SERVICE_URL: url, LEAD_SERVICE_TOKEN: 'lpat_unused' });
    await session.client.listTools();
  });
  afterAll(async () => {
    await session?.stop();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('reaches the model as the text it is, with the status', async () => {
    const job = await session.client.callTool({
      name: 'get_job_status',
      arguments: { job_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(job.isError).toBe(true);
    expect(job.structuredContent).toBeUndefined();
    expect(job.content).toEqual([{ type: 'text', text: '502 Bad Gateway: upstream exploded' }]);
    const mislabelled = await session.client.callTool({ name: 'get_access_token_status', arguments: {} });
    expect(mislabelled.content).toEqual([
      { type: 'text', text: '503 Service Unavailable: <html>not json after all</html>' },
    ]);
  });

  it('a service that cannot be reached is a tool error naming it', async () => {
    // A port nothing listens on any more.
    const gone = http.createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise((resolve) => gone.close(resolve));
    const unreachable = await connectMcp('stdio', { LEAD_SERVICE_URL: url, LEAD_SERVICE_TOKEN: 'lpat_unused' });
    try {
      const result = await unreachable.client.callTool({ name: 'get_access_token_status', arguments: {} });
      expect(errorOf(result).detail).toBe(
        `the service at ${url} could not be reached: connection refused (is the service running?)`,
      );
    } finally {
      await unreachable.stop();
    }
  });
});
