import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createClient, eventually, useTestApi } from '../support/harness';
import { spawnBeside } from '../support/second-api';
import { SUBMIT, jobPath, researchPath } from '../jobs/support';
import { approvalMail, approvedToken, brandsFor, linkOf, requestAccess } from '../agents/agent-helpers';
import { createKey } from '../integrations/helpers';
import { openStream } from '../events/sse-client';

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

/**
 * An OpenTelemetry collector as far as this test needs one: it keeps every span posted to /v1/traces, and every
 * body as posted (resource, scope, spans, attributes, events and links: all that left the process).
 */
function startCollector() {
  const spans: Span[] = [];
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        bodies.push(body);
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
  return { spans, bodies, server };
}

/** Secrets planted in what the traced process is asked to do, which no exported span may hold. */
const SECRETS = {
  operatorMapsKey: `AIzaOperator${randomBytes(12).toString('hex')}`,
  researchKey: `research-key-${randomBytes(12).toString('hex')}`,
};

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
      // The operator's provider keys, which its maps and research calls carry (never into a trace).
      MAPS_PROVIDER_KEY: SECRETS.operatorMapsKey,
      RESEARCH_PROVIDER_KEY: SECRETS.researchKey,
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

    // The job's own activities: its children (the index and webhook workflows, started before it ends) share the
    // trace, but their scheduling spans leave with their own runs' end, which may come after this read.
    const activitiesRun = spans.filter(
      (s) => s.name.startsWith('RunActivity:') && s.attributes.temporalWorkflowId === jobId,
    );
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
    const engine = (s: (typeof spans)[number]) => s.attributes['db.system.name'] ?? s.attributes['db.system'];
    expect(spans.some((s) => engine(s) === 'mongodb')).toBe(true);
    expect(spans.some((s) => engine(s) === 'redis')).toBe(true);

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

describe('traces exported by OTLP hold no credential', () => {
  it('redacts every query value (keeping path and names), exports no credential header and no provider key', async () => {
    const { api, admin } = ctx;
    const client = await createClient(api, admin, 'Secret Traces');
    const planted: Record<string, string> = { ...SECRETS, apiSecret: client.api_secret, triple: client.triple };
    const onTraced = (path: string, init: RequestInit = {}) => fetch(`${traced.url}${path}`, init);
    const sameOnTraced = (link: string) => onTraced(`${new URL(link).pathname}${new URL(link).search}`);

    // A dashboard user's session, made by a login on the traced process.
    const email = 'ops@secret-traces.test';
    const created = await api.call('POST', '/api/v1/dashboard/users', {
      token: admin,
      body: { email, role: 'client_user', client_id: client.client_id, password: 'trace-password-1' },
    });
    expect(created.status).toBe(201);
    const login = await onTraced('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'trace-password-1' }),
    });
    planted.session = ((await login.json()) as { access_token: string }).access_token;
    // An agent's token, and the brand's maps key it relays with.
    await brandsFor(client.client_id, [961]);
    planted.agentToken = (await approvedToken(api, admin, client)).token;
    planted.brandMapsKey = `AIzaBrand${randomBytes(12).toString('hex')}`;
    await createKey(api, client.triple, 961, { provider_name: 'maps', credentials: { api_key: planted.brandMapsKey } });

    // The event stream with each kind of credential in its query.
    for (const token of [planted.triple, planted.session, planted.agentToken]) {
      const stream = await openStream(`${traced.url}/api/v1/events/stream?token=${encodeURIComponent(token)}`);
      expect(stream.status).toBe(200);
      await stream.next((f) => f.event === 'connected');
      stream.close();
    }
    // An access request's poll and approval links, a reset link and a signup link, followed on the traced process.
    const receipt = await requestAccess(api, client.client_id);
    planted.pollToken = new URL(receipt.poll_url, 'http://x').searchParams.get('poll_token')!;
    expect((await onTraced(receipt.poll_url)).status).toBe(200);
    const approve = linkOf(await approvalMail(api, admin, client.admin_email, receipt.request_id), 'approve');
    planted.approvalToken = new URL(approve).searchParams.get('approval_token')!;
    expect((await sameOnTraced(approve)).status).toBe(200); // the confirmation page: decides nothing
    const reset = await api.call('POST', `/api/v1/dashboard/users/${created.body.user_id}/trigger-reset`, {
      token: admin,
    });
    expect(reset.status).toBe(202);
    const resetLink = await eventually(async () => {
      const res = await api.call('GET', `/api/v1/dev/outbox?channel=email&to=${encodeURIComponent(email)}`, {
        token: admin,
      });
      return res.body.messages
        .flatMap((m: { links: string[] }) => m.links)
        .find((l: string) => l.includes('/reset-password?token='));
    });
    planted.resetToken = new URL(resetLink).searchParams.get('token')!;
    expect((await sameOnTraced(resetLink)).status).toBe(200);
    planted.signupToken = `sgt2.k1.${randomBytes(24).toString('base64url')}`;
    await onTraced(`/signup?token=${encodeURIComponent(planted.signupToken)}`);

    // A relay with the brand's maps key, a maps-scrape job with the operator's key, a research job with its own.
    const relayed = await onTraced('/api/v1/agent/proxy/maps/geocode/json', {
      method: 'POST',
      headers: { authorization: `Bearer ${planted.agentToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ params: { address: 'Oudegracht 12, Utrecht' } }),
    });
    expect(relayed.status).toBe(200);
    const jobs = await Promise.all([
      call('POST', SUBMIT, client.triple, { query: 'bakery', country_code: 'NL', max_locations: 1, max_results: 2 }),
      call('POST', '/api/v1/dashboard/client/research/submit', client.triple, {
        companies: [{ name: 'Golden Bakery', domain: 'golden-bakery-1a2b.example' }],
      }),
    ]);
    for (const job of jobs) expect(job.status).toBe(200);
    const runs = [
      { id: jobs[0].body.job_id as string, path: jobPath(jobs[0].body.job_id), workflow: 'mapsScrapeWorkflow' },
      {
        id: jobs[1].body.research_id as string,
        path: researchPath(jobs[1].body.research_id),
        workflow: 'researchWorkflow',
      },
    ];
    for (const run of runs)
      await eventually(async () => {
        const status = await call('GET', run.path, client.triple);
        return status.body.status === 'completed' ? true : undefined;
      }, 60_000);

    // Every path above was traced, the provider calls too (the relay's, the job's, the research fetch's)...
    const urls = () => collector.spans.map((s) => String(s.attributes['url.full'] ?? s.attributes['http.url'] ?? ''));
    const paths = [
      '/events/stream?token=',
      '/status?poll_token=',
      '/approve?approval_token=',
      '/reset-password?token=',
      '/signup?token=',
      '/maps/api/geocode/json?',
      '/maps/api/place/textsearch/json?',
      '/research/fetch?',
    ];
    await eventually(async () => {
      const seen = urls();
      const missing = paths.filter((p) => !seen.some((u) => u.includes(p)));
      if (missing.length) throw new Error(`not traced yet: ${missing.join(', ')}`);
      return true;
    }, 30_000);
    // The workflows' own spans leave through the worker's sink when their runs end: those too.
    await eventually(async () => {
      const ended = (run: (typeof runs)[number]) => {
        const start = collector.spans.find((s) => s.attributes.temporalWorkflowId === run.id);
        return collector.spans.some((s) => s.name === `RunWorkflow:${run.workflow}` && s.traceId === start?.traceId);
      };
      if (!runs.every(ended))
        throw new Error(`runs not ended: ${runs.filter((r) => !ended(r)).map((r) => r.workflow)}`);
      return true;
    }, 30_000);
    // Nothing exported (attributes, events, links, status, resource) holds a secret, raw or URL-encoded...
    const exported = collector.bodies.join('\n');
    const leaked = Object.entries(planted).filter(
      ([, secret]) => exported.includes(secret) || exported.includes(encodeURIComponent(secret)),
    );
    expect(leaked.map(([name]) => name)).toEqual([]);
    // ...while the path and the parameter names are kept.
    const streamSpan = collector.spans.find(
      (s) => s.kind === SERVER && String(s.attributes['http.target']).startsWith('/api/v1/events/stream'),
    );
    expect(streamSpan?.attributes['http.target']).toBe('/api/v1/events/stream?token=REDACTED');
    expect(urls().find((u) => u.includes('/maps/api/geocode/json?'))).toMatch(/[?&]key=REDACTED(?:&|$)/);
    const headerKeys = collector.spans.flatMap((s) =>
      Object.keys(s.attributes).filter((k) => /^http\.(?:request|response)\.header\./.test(k)),
    );
    expect(headerKeys.filter((k) => /auth|cookie|key|token|secret|signature|session/i.test(k))).toEqual([]);
  });
});
