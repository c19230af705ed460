import { useState, type FormEvent, type ReactNode } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { CheckCircle2, ExternalLink, XCircle } from 'lucide-react';
import { api, unwrap, type components } from '@/api/client';
import { ApiCallButton } from '@/components/api-call-button';
import { Loaded, PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Checkbox } from '@/components/ui/checkbox';
import { Input, Label, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatNumber } from '@/lib/format';
import { LOG_LEVELS, systemRoute, type SystemSearch } from './routes';
import { LogsPanel } from './logs-panel';

type Health = components['schemas']['Health'];
type Check = components['schemas']['Check'];

/** The health answer: 200 when all is up, 503 with the same body (and a `detail`) when an engine is down. */
const isHealth = (body: unknown): body is Health =>
  typeof body === 'object' && body !== null && 'checks' in body && 'status' in body;

async function readHealth(): Promise<Health> {
  const answer = await api.GET('/api/v1/system/health');
  if (answer.response.status === 503 && isHealth(answer.error)) return answer.error;
  return unwrap(Promise.resolve(answer));
}

const ENGINE_NAMES: Record<keyof Health['checks'], string> = {
  api: 'API',
  mongodb: 'MongoDB',
  redis: 'Redis',
  temporal: 'Temporal',
};

/** An engine's state in words and an icon as well as colour. */
function EngineState({ name, check }: { name: string; check: Check }) {
  const up = check.status === 'up';
  const Icon = up ? CheckCircle2 : XCircle;
  return (
    <li className="flex flex-col gap-0.5 rounded-lg border border-border p-3" data-engine={name}>
      <span className="text-sm text-muted-foreground">{name}</span>
      <span className={`flex items-center gap-1.5 font-semibold ${up ? 'text-success' : 'text-destructive'}`}>
        <Icon className="size-4" aria-hidden /> {up ? 'Up' : 'Down'}
      </span>
      <span className="text-xs text-muted-foreground">{formatNumber(check.latency_ms)} ms</span>
      {check.error && <span className="text-xs text-destructive">{check.error}</span>}
    </li>
  );
}

function HealthSection() {
  const health = useQuery({ queryKey: ['system', 'health'], queryFn: readHealth, refetchInterval: 30_000 });
  return (
    <Card>
      <SectionHeading
        id="system-health"
        title="Health"
        call={{ operationId: 'getHealth', method: 'GET', path: '/api/v1/system/health' }}
      />
      <Loaded query={health} label="Checking the engines…">
        {(data) => (
          <>
            <p className="mb-2 text-sm">
              {data.status === 'ok' ? 'Every engine is up.' : `Degraded: ${data.detail ?? 'an engine is down'}.`}{' '}
              <span className="text-muted-foreground">Checked {formatDateTime(data.checked_at)}.</span>
            </p>
            <ul aria-label="Engines" className="grid grid-cols-2 gap-3 sm:grid-cols-4">
              {(Object.keys(ENGINE_NAMES) as (keyof Health['checks'])[]).map((k) => (
                <EngineState key={k} name={ENGINE_NAMES[k]} check={data.checks[k]} />
              ))}
            </ul>
          </>
        )}
      </Loaded>
    </Card>
  );
}

function SectionHeading({
  id,
  title,
  call,
}: {
  id: string;
  title: string;
  call: Parameters<typeof ApiCallButton>[0]['call'];
}) {
  return (
    <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      <ApiCallButton call={call} />
    </div>
  );
}

/**
 * The Temporal Web UI's pages of the namespace: `<ui>/namespaces/<namespace>/…` (a UI address that names the
 * namespace already, Temporal Cloud's, gets only the rest), as the jobs' run links are made (src/jobs/temporal-link.ts).
 */
export function temporalUi(uiUrl: string, namespace: string) {
  const base = uiUrl.endsWith('/') ? uiUrl.slice(0, -1) : uiUrl;
  const ns = encodeURIComponent(namespace);
  const root = base.endsWith(`/namespaces/${ns}`) ? base : `${base}/namespaces/${ns}`;
  return {
    workflows: (query?: string) => `${root}/workflows${query ? `?query=${encodeURIComponent(query)}` : ''}`,
    schedules: `${root}/schedules`,
  };
}

type Temporal = components['schemas']['SystemInfo']['temporal'];

function InfoSection({ info }: { info: ReturnType<typeof useSystemInfo> }) {
  return (
    <Card>
      <SectionHeading
        id="system-info"
        title="Information"
        call={{ operationId: 'getSystemInfo', method: 'GET', path: '/api/v1/system/info' }}
      />
      <Loaded query={info}>
        {(data) => (
          <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
            {(
              [
                ['Version', `${data.name} ${data.version}`],
                ['Build', `${data.build.commit ?? 'commit unknown'} · Node ${data.build.node_version}`],
                ['Environment', data.environment],
                ['Up for', formatUptime(data.uptime_seconds)],
                ['API base path', data.api_base_path],
                [
                  'Drivers',
                  Object.entries(data.drivers)
                    .map(([k, v]) => `${k.replace('_', ' ')}: ${v}`)
                    .join(' · '),
                ],
                ['Temporal', `namespace ${data.temporal.namespace} · task queue ${data.temporal.task_queue}`],
                ['Largest JSON body', `${formatNumber(data.limits.json_body_bytes)} bytes`],
              ] as const
            ).map(([term, value]) => (
              <div key={term} className="contents">
                <dt className="font-medium">{term}</dt>
                <dd className="break-words text-muted-foreground">{value}</dd>
              </div>
            ))}
          </dl>
        )}
      </Loaded>
    </Card>
  );
}

const formatUptime = (seconds: number) => {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h ? `${h} h ${m} min` : `${m} min ${Math.floor(seconds % 60)} s`;
};

function ExternalA({ href, children }: { href: string; children: ReactNode }) {
  return (
    <a
      href={href}
      target="_blank"
      rel="noreferrer"
      className="inline-flex items-center gap-1 text-primary underline-offset-4 hover:underline"
    >
      {children} <ExternalLink className="size-3.5" aria-hidden />
      <span className="sr-only">(opens in a new tab)</span>
    </a>
  );
}

function QueuesSection({ temporal }: { temporal?: Temporal }) {
  const stats = useQuery({
    queryKey: ['system', 'queue-stats'],
    queryFn: () => unwrap(api.GET('/api/v1/system/queue-stats')),
    refetchInterval: 10_000,
  });
  const ui = temporal?.ui_url ? temporalUi(temporal.ui_url, temporal.namespace) : null;
  return (
    <Card>
      <SectionHeading
        id="system-queues"
        title="Queues and runs"
        call={{ operationId: 'getQueueStats', method: 'GET', path: '/api/v1/system/queue-stats' }}
      />
      {ui ? (
        <nav aria-label="Temporal UI" className="mb-3 flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <ExternalA href={ui.workflows()}>Every run in the Temporal UI</ExternalA>
          <ExternalA href={ui.workflows('ExecutionStatus="Running"')}>Running now</ExternalA>
          <ExternalA href={ui.schedules}>Every schedule</ExternalA>
        </nav>
      ) : (
        temporal && (
          <p className="mb-3 text-sm text-muted-foreground">
            No Temporal UI is known to the service (TEMPORAL_UI_URL is not set), so runs cannot be linked.
          </p>
        )
      )}
      <Loaded query={stats} label="Reading the queues…">
        {(data) => (
          <div className="overflow-x-auto" role="region" aria-label="Task queues" tabIndex={0}>
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Temporal task queues, read {formatDateTime(data.generated_at)}</caption>
              <thead>
                <tr className="border-b border-border">
                  <th scope="col" className="py-1 pr-4 font-medium">
                    Task queue
                  </th>
                  <th scope="col" className="py-1 pr-4 text-right font-medium">
                    Backlog
                  </th>
                  <th scope="col" className="py-1 pr-4 text-right font-medium">
                    Workers
                  </th>
                  <th scope="col" className="py-1 pr-4 text-right font-medium">
                    Running
                  </th>
                  <th scope="col" className="py-1 pr-4 font-medium">
                    Running by workflow type
                  </th>
                </tr>
              </thead>
              <tbody>
                {(data.task_queues ?? []).map((q) => (
                  <tr key={q.name} className="border-b border-border align-top">
                    <th scope="row" className="py-1 pr-4 font-normal">
                      {ui ? <ExternalA href={ui.workflows(`TaskQueue="${q.name}"`)}>{q.name}</ExternalA> : q.name}
                    </th>
                    <td className="py-1 pr-4 text-right tabular-nums">{formatNumber(q.backlog)}</td>
                    <td className="py-1 pr-4 text-right tabular-nums">{formatNumber(q.pollers)}</td>
                    <td className="py-1 pr-4 text-right tabular-nums">{formatNumber(q.running_total)}</td>
                    <td className="py-1 pr-4">
                      <ul>
                        {Object.entries(q.running).map(([type, n]) => (
                          <li key={type}>
                            {ui ? (
                              <ExternalA
                                href={ui.workflows(
                                  `TaskQueue="${q.name}" AND WorkflowType="${type}" AND ExecutionStatus="Running"`,
                                )}
                              >
                                {type}
                              </ExternalA>
                            ) : (
                              type
                            )}
                            : {formatNumber(n)}
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {(data.task_queues ?? []).length === 0 && <p className="p-3 text-sm">No task queues reported.</p>}
          </div>
        )}
      </Loaded>
    </Card>
  );
}

function CredentialsSection() {
  const health = useQuery({
    queryKey: ['system', 'credential-health'],
    queryFn: () => unwrap(api.GET('/api/v1/system/credential-health')),
  });
  return (
    <Card>
      <SectionHeading
        id="system-credentials"
        title="Credential health"
        call={{ operationId: 'getCredentialHealth', method: 'GET', path: '/api/v1/system/credential-health' }}
      />
      <Loaded query={health}>
        {(data) => (
          <p className="text-sm">
            <span className={`font-semibold ${data.status === 'ok' ? 'text-success' : 'text-destructive'}`}>
              {data.status === 'ok' ? 'OK' : 'Needs attention'}
            </span>
            : {formatNumber(data.missing_encrypted_credentials)} of {formatNumber(data.active_clients)} active clients
            lack their encrypted credential copy
            {data.missing_encrypted_credentials ? ' (their scheduled campaigns are skipped)' : ''}.{' '}
            <span className="text-muted-foreground">Checked {formatDateTime(data.checked_at)}.</span>
          </p>
        )}
      </Loaded>
    </Card>
  );
}

const useSystemInfo = () =>
  useQuery({ queryKey: ['system', 'info'], queryFn: () => unwrap(api.GET('/api/v1/system/info')) });

/**
 * The operator's view of the service (super_admin): each engine's health, version and configuration, the Temporal
 * queues with links to every run and schedule in the Temporal UI, the stored credentials' health and the logs.
 */
export function SystemPage() {
  const info = useSystemInfo();
  return (
    <>
      <PageHeader title="System" description="Health, configuration, queues and logs of the service." />
      <div className="flex flex-col gap-4">
        <HealthSection />
        <QueuesSection temporal={info.data?.temporal} />
        <CredentialsSection />
        <InfoSection info={info} />
        <LogsSection />
      </div>
    </>
  );
}

function LogsSection() {
  const search = systemRoute.useSearch();
  const navigate = useNavigate({ from: systemRoute.fullPath });
  const setSearch = (next: Partial<SystemSearch>) =>
    void navigate({ search: (prev: SystemSearch) => ({ ...prev, ...next }) });
  // The typed filters start from the URL's (a Back or a link redraws the form: its key).
  return (
    <LogsFilters key={`${search.container ?? ''}\u0000${search.search ?? ''}`} search={search} setSearch={setSearch} />
  );
}

function LogsFilters({
  search,
  setSearch,
}: {
  search: SystemSearch;
  setSearch: (next: Partial<SystemSearch>) => void;
}) {
  const [draft, setDraft] = useState({ container: search.container ?? '', search: search.search ?? '' });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setSearch({ container: draft.container.trim() || undefined, search: draft.search.trim() || undefined });
  };
  const { follow, ...filters } = search;
  return (
    <Card>
      <SectionHeading
        id="system-logs"
        title="Logs"
        call={{ operationId: 'getLogs', method: 'GET', path: '/api/v1/dashboard/admin/logs', query: filters }}
      />
      <form className="mb-3 flex flex-wrap items-end gap-3" role="search" aria-label="Filter the logs" onSubmit={apply}>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-container">Container</Label>
          <Input
            id="logs-container"
            value={draft.container}
            onChange={(e) => setDraft({ ...draft, container: e.target.value })}
            placeholder="Any, e.g. api"
            list="logs-containers"
            className="w-36"
          />
          <datalist id="logs-containers">
            {['api', 'worker', 'mongo', 'redis', 'temporal'].map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-level">Lowest level</Label>
          <NativeSelect
            id="logs-level"
            value={search.level ?? ''}
            onChange={(e) => setSearch({ level: (e.target.value || undefined) as SystemSearch['level'] })}
            className="w-28"
          >
            <option value="">Any</option>
            {LOG_LEVELS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </NativeSelect>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-search">Text</Label>
          <Input
            id="logs-search"
            type="search"
            value={draft.search}
            onChange={(e) => setDraft({ ...draft, search: e.target.value })}
            className="w-48"
          />
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-minutes">Minutes back</Label>
          <NativeSelect
            id="logs-minutes"
            value={search.minutes}
            onChange={(e) => setSearch({ minutes: Number(e.target.value) })}
            className="w-24"
          >
            {[...new Set([5, 15, 60, 240, 1440, search.minutes])]
              .sort((a, b) => a - b)
              .map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
          </NativeSelect>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-limit">Most lines</Label>
          <NativeSelect
            id="logs-limit"
            value={search.limit}
            onChange={(e) => setSearch({ limit: Number(e.target.value) })}
            className="w-24"
          >
            {[...new Set([50, 100, 500, 1000, search.limit])]
              .sort((a, b) => a - b)
              .map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
          </NativeSelect>
        </div>
        <Button type="submit" variant="outline" size="sm" className="h-9">
          Apply
        </Button>
        <div className="flex h-9 items-center gap-2">
          <Checkbox id="logs-follow" checked={follow} onCheckedChange={(v) => setSearch({ follow: v === true })} />
          <Label htmlFor="logs-follow">Follow new lines</Label>
        </div>
      </form>
      <LogsPanel filters={filters} follow={follow} />
    </Card>
  );
}
