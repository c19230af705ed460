import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createClient, eventually, useTestApi } from '../support/harness';
import { spawnBeside } from '../support/second-api';
import { SUBMIT, jobPath } from '../jobs/support';

/** A span as OTLP/JSON carries it, with its attributes read into a record. */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}
const SERVER = 2; // OTLP's SPAN_KIND_SERVER

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: OtlpValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));

/** An OpenTelemetry collector as far as this test needs one: it keeps every span posted to /v1/traces. */
function startCollector() {
  const spans: Span[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        for (const rs of JSON.parse(body).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                ...s,
                parentSpanId: s.parentSpanId || undefined,
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a: { key: string; value: OtlpValue }) => [a.key, valueOf(a.value)]),
                ),
              });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { spans, server };
}

const collector = startCollector();
const lines: Record<string, unknown>[] = [];
let traced: { url: string; proc: ChildProcess };
const ctx = useTestApi();

beforeAll(async () => {
  await new Promise<void>((resolve) => collector.server.listen(0, '127.0.0.1', resolve));
  const { port } = collector.server.address() as AddressInfo;
  let pending = '';
  traced = await spawnBeside(
    ctx.api,
    path.join(__dirname, 'traced-process.ts'),
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: '200', // spans sent within a fifth of a second, not five
      LOG_LEVEL: 'info',
      TEMPORAL_TASK_QUEUE: `traced-${randomUUID()}`, // its own worker runs what it starts
    },
    (output, proc) => {
      pending += output;
      const complete = pending.split('\n');
      pending = complete.pop()!;
      let url: string | undefined;
      for (const line of complete) {
        if (line.startsWith('{')) lines.push(JSON.parse(line));
        url ??= /api ready (\S+)/.exec(line)?.[1];
      }
      return url ? { url, proc } : undefined;
    },
  );
});
afterAll(async () => {
  if (traced) {
    const exited = new Promise((resolve) => traced.proc.once('exit', resolve));
    traced.proc.kill('SIGTERM');
    await exited;
  }
  collector.server.close();
});

const call = async (method: string, p: string, token: string, body?: unknown, requestId?: string) => {
  const res = await fetch(`${traced.url}${p}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(requestId ? { 'x-request-id': requestId } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('traces exported by OTLP', () => {
  it('follow a job submit from the HTTP request through the workflow to each activity, by request', async () => {
    const { api, admin } = ctx;
    const acme = await createClient(api, admin, 'Acme Traces');
    const requestId = `trace-${randomUUID()}`;
    const submitted = await call(
      'POST',
      SUBMIT,
      acme.triple,
      { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 1 },
      requestId,
    );
    expect(submitted.status).toBe(200);
    const jobId = submitted.body.job_id as string;
    await eventually(async () => {
      const status = await call('GET', jobPath(jobId), acme.triple);
      return status.body.status === 'completed' ? true : undefined;
    }, 60_000);

    const http = await eventually(async () =>
      collector.spans.find((s) => s.kind === SERVER && s.attributes['request.id'] === requestId),
    );
    expect(http.attributes['http.target'] ?? http.attributes['url.path']).toBe(SUBMIT);
    expect(http.attributes['http.status_code'] ?? http.attributes['http.response.status_code']).toBe(200);

    // The workflow's spans leave the sandbox through the worker's sink once its run has ended.
    const spans = await eventually(async () => {
      const all = collector.spans.filter((s) => s.traceId === http.traceId);
      const names = new Set(all.map((s) => s.name));
      return names.has('RunActivity:finishJob') && names.has('RunWorkflow:mapsScrapeWorkflow') ? all : undefined;
    });
    const named = (name: string) => spans.filter((s) => s.name === name);
    const [start] = named('StartWorkflow:mapsScrapeWorkflow');
    const [run] = named('RunWorkflow:mapsScrapeWorkflow');
    expect(start.parentSpanId).toBeDefined();
    expect(start.attributes.temporalWorkflowId).toBe(jobId);
    expect(run.parentSpanId).toBe(start.spanId);
    // The start is inside the request (under the server span, through Express's own spans where there are any).
    const ancestors = (s: Span): string[] => {
      const parent = spans.find((p) => p.spanId === s.parentSpanId);
      return parent ? [parent.spanId, ...ancestors(parent)] : [];
    };
    expect(ancestors(start)).toContain(http.spanId);

    const activitiesRun = spans.filter((s) => s.name.startsWith('RunActivity:'));
    expect(activitiesRun.map((s) => s.name)).toEqual(
      expect.arrayContaining(['RunActivity:startMapsJob', 'RunActivity:scrapeLocations', 'RunActivity:finishJob']),
    );
    for (const activity of activitiesRun) {
      const scheduled = spans.find((s) => s.spanId === activity.parentSpanId)!;
      expect(scheduled.name).toBe(activity.name.replace('RunActivity:', 'StartActivity:'));
      expect(scheduled.parentSpanId).toBe(run.spanId);
    }
    // The provider's calls, MongoDB's and Redis's are spans of the same trace.
    expect(spans.some((s) => s.attributes['server.address'] === '127.0.0.1' && s.name === 'GET')).toBe(true);
    expect(spans.some((s) => s.name.startsWith('mongodb.'))).toBe(true);

    // Every span of the trace (HTTP, Temporal client, workflow, activities, and what they call) names the request;
    // the other server spans are the stand-in providers' (in this process: a real provider records its own).
    const ours = spans.filter((s) => s.kind !== SERVER || s === http);
    const unnamed = ours.filter((s) => s.attributes['request.id'] !== requestId).map((s) => s.name);
    expect(unnamed).toEqual([]);

    // The request's log line names its request and its trace.
    const logged = lines.find((l) => l.request_id === requestId && (l.req as { url?: string })?.url === SUBMIT);
    expect(logged).toMatchObject({ trace_id: http.traceId, span_id: expect.any(String) });
  });

  it("writes an activity's log lines with the request that started its workflow and the workflow's id", async () => {
    const { api, admin } = ctx;
    const client = await createClient(api, admin, 'Reset Traces');
    const created = await api.call('POST', '/api/v1/dashboard/users', {
      token: admin,
      body: { email: 'ops@traces.test', role: 'client_user', client_id: client.client_id, password: 'first-pass-1' },
    });
    expect(created.status).toBe(201);
    const requestId = `reset-${randomUUID()}`;
    const trigger = await call(
      'POST',
      `/api/v1/dashboard/users/${created.body.user_id}/trigger-reset`,
      admin,
      undefined,
      requestId,
    );
    expect(trigger.status).toBe(202);
    const deliveryId = trigger.body.delivery_id as string;
    const delivered = await eventually(async () =>
      lines.find((l) => l.msg === 'message delivered' && l.workflow_id === deliveryId),
    );
    expect(delivered).toMatchObject({
      request_id: requestId,
      activity_type: 'sendMessage',
      trace_id: expect.any(String),
    });
  });
});
