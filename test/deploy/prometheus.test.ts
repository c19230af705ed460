import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { registry } from '../../src/lib/metrics';
import { PROMTOOL } from '../../tools/devstack/prepare';

const root = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const promDir = path.join(root, 'deploy', 'prometheus');
const RULES = path.join(promDir, 'rules', 'lead-service.yml');
const UNIT_TESTS = path.join(promDir, 'tests', 'lead-service.test.yml');

/** promtool as `npm run devstack -- prepare` builds it (the tests' global setup does it on a fresh machine). */
async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  if (!fs.existsSync(PROMTOOL)) throw new Error(`${PROMTOOL} is missing: run npm run devstack -- prepare`);
  try {
    const { stdout, stderr } = await promisify(execFile)(PROMTOOL, args, { cwd: promDir });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string>; volumes?: unknown[]; profiles?: string[] }>;
};
const prometheusConfig = parse(read('deploy/prometheus/prometheus.yml')) as {
  rule_files: string[];
  scrape_configs: { job_name: string; dns_sd_configs?: { names: string[]; port: number }[] }[];
};

/** The metric names a PromQL text uses: words followed by `{`, `[`, `)` or an operator, that name a series. */
const metricNames = (text: string) =>
  new Set([...text.matchAll(/\b((?:lead|temporal)_[a-z_]+)\b/g)].map((m) => m[1]).filter((n) => !n.includes(':')));

describe("compose's Prometheus: configuration, SLO alert rules and dashboard", () => {
  it('is a configuration promtool accepts, loading the rules', async () => {
    const { code, output } = await promtool('check', 'config', 'prometheus.yml');
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('1 rule files found') });
  });

  it('has rules promtool accepts, and their unit tests with synthetic series pass', async () => {
    const checked = await promtool('check', 'rules', RULES);
    expect({ code: checked.code, output: checked.output }).toEqual({
      code: 0,
      output: expect.stringMatching(/SUCCESS: \d+ rules found/),
    });
    const tested = await promtool('test', 'rules', UNIT_TESTS);
    expect({ code: tested.code, output: tested.output }).toEqual({
      code: 0,
      output: expect.stringContaining('SUCCESS'),
    });
  });

  it('fails a unit test whose expectation the rules do not meet (the check can fail)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promtool-'));
    try {
      // The 10%-errors case now claims no page: the fast-burn rule fires, so promtool must say the test failed.
      const wrong = read('deploy/prometheus/tests/lead-service.test.yml')
        .replace('../rules/lead-service.yml', RULES)
        .replace(/(alertname: LeadAvailabilityFastBurn\n\s+exp_alerts:)\n\s+- exp_labels:[\s\S]*?(?=\n\n)/, '$1 []');
      expect(wrong).not.toBe(read('deploy/prometheus/tests/lead-service.test.yml'));
      fs.writeFileSync(path.join(dir, 'wrong.test.yml'), wrong);
      const { code, output } = await promtool('test', 'rules', path.join(dir, 'wrong.test.yml'));
      expect(code).not.toBe(0);
      expect(output).toContain('LeadAvailabilityFastBurn');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('alerts on each SLO: availability burn rates, p95 and p99 latency, the job backlog, workers and engines', () => {
    const rules = parse(fs.readFileSync(RULES, 'utf8')) as { groups: { rules: { alert?: string; expr: string }[] }[] };
    const alerts = rules.groups.flatMap((g) => g.rules).filter((r) => r.alert);
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining([
        'LeadAvailabilityFastBurn',
        'LeadAvailabilitySlowBurn',
        'LeadLatencyP95High',
        'LeadLatencyP99High',
        'LeadJobBacklogFull',
        'LeadJobsWaitForWorkers',
        'LeadTargetDown',
        'LeadMongoPoolExhausted',
        'LeadStreamDrainLagging',
      ]),
    );
    // The SLOs' alerts each have a unit test (the others are thresholds on one series).
    const unitTests = fs.readFileSync(UNIT_TESTS, 'utf8');
    for (const alert of [
      'LeadAvailabilityFastBurn',
      'LeadLatencyP95High',
      'LeadLatencyP99High',
      'LeadJobsWaitForWorkers',
      'LeadTargetDown',
      'LeadNoBulkWorker',
    ])
      expect(unitTests).toContain(`alertname: ${alert}`);
  });

  it('reads only metrics the service exports, from the replicas compose runs, on the port they serve them', async () => {
    // The service's own metric names, from its registry; histograms are read through their series.
    const own = new Set(
      (await registry.getMetricsAsJSON()).flatMap((m) =>
        String(m.type) === 'histogram' ? [`${m.name}_bucket`, `${m.name}_count`, `${m.name}_sum`] : [m.name],
      ),
    );
    const dashboard = read('deploy/grafana/dashboards/lead-service-slo.json');
    const used = new Set([...metricNames(fs.readFileSync(RULES, 'utf8')), ...metricNames(dashboard)]);
    expect(used.size).toBeGreaterThan(6);
    // temporal_* come from the Temporal SDK's exporter, passed on in the same scrape (src/lib/metrics.ts).
    const unknown = [...used].filter((name) => !name.startsWith('temporal_') && !own.has(name));
    expect(unknown).toEqual([]);

    const metricsPort = Number(compose.services.api.environment!.METRICS_PORT);
    const scraped = prometheusConfig.scrape_configs.flatMap((c) => c.dns_sd_configs ?? []);
    expect(scraped.flatMap((c) => c.names).sort()).toEqual(['api', 'worker', 'worker-bulk']);
    for (const sd of scraped) expect(sd.port).toBe(metricsPort);
    for (const name of ['worker', 'worker-bulk'])
      expect(compose.services[name].environment!.METRICS_PORT).toBe(String(metricsPort));
    // The rules are where the configuration looks for them, in the container too.
    expect(prometheusConfig.rule_files).toEqual(['rules/*.yml']);
    expect(compose.services.prometheus.volumes).toEqual(
      expect.arrayContaining([
        './deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
        './deploy/prometheus/rules:/etc/prometheus/rules:ro',
      ]),
    );
    for (const name of ['prometheus', 'grafana']) expect(compose.services[name].profiles).toEqual(['observability']);
  });

  it("provisions Grafana's data source and the SLO dashboard that names it", () => {
    const datasources = parse(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { uid: string; url: string }[];
    };
    expect(datasources.datasources).toEqual([
      expect.objectContaining({ uid: 'prometheus', url: 'http://prometheus:9090' }),
    ]);
    const providers = parse(read('deploy/grafana/provisioning/dashboards/lead-service.yml')) as {
      providers: { options: { path: string } }[];
    };
    expect(compose.services.grafana.volumes).toEqual(
      expect.arrayContaining([`./deploy/grafana/dashboards:${providers.providers[0].options.path}:ro`]),
    );
    const dashboard = JSON.parse(read('deploy/grafana/dashboards/lead-service-slo.json')) as {
      uid: string;
      panels: { title: string; datasource: { uid: string }; targets: { expr: string }[] }[];
    };
    expect(dashboard.panels.length).toBeGreaterThan(8);
    for (const panel of dashboard.panels) {
      expect({ panel: panel.title, datasource: panel.datasource.uid }).toEqual({
        panel: panel.title,
        datasource: 'prometheus',
      });
      expect(panel.targets.length).toBeGreaterThan(0);
    }
    // The dashboard reads the recording rules the alerts read, so both show the same figures.
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const record of ['lead:http_request_errors:ratio_rate1h', 'lead:http_request_duration_seconds:p95_5m'])
      expect(exprs).toContain(record);
  });
});
