import { randomUUID } from 'node:crypto';
import { createLogger } from '../../src/lib/logger';
import { freeLoopbackAddress } from '../../src/lib/metrics';
import { installTemporalLogger } from '../../src/worker/create-worker';
import { createClient, eventually, useTestApi } from '../support/harness';
import { brandCast } from '../brands/brand-helpers';
import { PARCEL_KEY, createKey } from '../integrations/helpers';
import { SUBMIT, jobPath, waitForStatus } from '../jobs/support';

/** One sample of a scrape: its value, or undefined when no line has that name and exactly those labels. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:][\w:]*)(?:\{(.*)\})? (\S+)/i.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/\b(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

// The Temporal runtime, with its Prometheus exporter, is installed once per process before any worker, as the
// entry points do (src/main.ts, src/worker.ts).
beforeAll(async () => {
  installTemporalLogger(createLogger('silent'), { metricsBindAddress: await freeLoopbackAddress() });
});
const ctx = useTestApi({ METRICS_PORT: '0' });

describe('GET /metrics', () => {
  it('counts requests, jobs, relay calls and spend, caches and drains, with the Temporal worker metrics', async () => {
    const { api, admin } = ctx;
    const acme = await createClient(api, admin, 'Acme Metrics');
    const submitted = await api.call('POST', SUBMIT, {
      token: acme.triple,
      body: { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 1 },
    });
    expect(submitted.status).toBe(200);
    await waitForStatus(api, acme.triple, jobPath(submitted.body.job_id), ['completed']);
    expect((await api.call('GET', jobPath(randomUUID()), { token: acme.triple })).status).toBe(404);

    const cast = await brandCast(api, admin, 'metrics');
    await createKey(api, cast.parties.admin.token, cast.brandId, {
      provider_name: 'parcel-tracking',
      credentials: { api_key: PARCEL_KEY },
    });
    const relayed = await api.call('POST', '/api/v1/agent/proxy/parcel-tracking', {
      token: cast.parties.member.token,
      headers: { 'x-brand-id': String(cast.brandId) },
      body: { method: 'GET', path: '/trackings/3SABCD1234567' },
    });
    expect(relayed.status).toBe(200);
    await api.rt.worker!.drain.flush();

    const scrape = async () => {
      const res = await fetch(`${api.rt.metricsUrl}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      return res.text();
    };
    // The Temporal SDK exports its figures a little after the events they count.
    const text = await eventually(async () => {
      const t = await scrape();
      return sample(t, 'temporal_activity_execution_latency_count', { task_queue: api.config.bulkTaskQueue })
        ? t
        : undefined;
    }, 20_000);

    const requests = (operation: string, status: string) =>
      sample(text, 'lead_http_request_duration_seconds_count', { operation, status });
    expect(requests('login', '200')).toBeGreaterThanOrEqual(1);
    expect(requests('submitMapsScrapeJob', '200')).toBe(1);
    expect(requests('getJobStatus', '404')).toBe(1);
    expect(requests('proxyParcelTracking', '200')).toBe(1);
    expect(sample(text, 'lead_http_request_duration_seconds_bucket', { operation: 'login', le: '+Inf' })).toBe(
      requests('login', '200'),
    );

    expect(sample(text, 'lead_jobs_submitted_total', { type: 'maps-scrape' })).toBe(1);
    expect(sample(text, 'lead_jobs_finished_total', { type: 'maps-scrape', outcome: 'completed' })).toBe(1);

    expect(sample(text, 'lead_relay_calls_total', { provider: 'parcel-tracking', outcome: '2xx' })).toBe(1);
    expect(sample(text, 'lead_relay_spend_total', { provider: 'parcel-tracking' })).toBeGreaterThan(0);

    expect(sample(text, 'lead_cache_lookups_total', { cache: 'credentials', result: 'hit' })).toBeGreaterThan(0);
    expect(sample(text, 'lead_cache_lookups_total', { cache: 'integration_keys', result: 'miss' })).toBe(1);
    expect(sample(text, 'lead_stream_drain_records_total', { stream: 'relay:usage' })).toBe(1);
    expect(sample(text, 'lead_stream_drain_lag_seconds', { stream: 'relay:usage' })).toBe(0);
    expect(sample(text, 'lead_stream_drain_lag_seconds', { stream: 'activity:events' })).toBeDefined();

    // The SDK's own worker metrics, for this test's bulk task queue (where the job ran).
    const queue = { task_queue: api.config.bulkTaskQueue };
    expect(sample(text, 'temporal_worker_task_slots_available', queue)).toBeGreaterThan(0);
    expect(sample(text, 'temporal_workflow_completed_total', queue)).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'lead_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('is served on its own port only: the API answers /metrics as an unknown route', async () => {
    expect(new URL(ctx.api.rt.metricsUrl!).port).not.toBe(new URL(ctx.api.url).port);
    expect((await ctx.api.call('GET', '/metrics')).status).toBe(404);
    expect((await fetch(`${ctx.api.rt.metricsUrl}/other`)).status).toBe(404);
  });
});
