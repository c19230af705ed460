import { expectedPlaces } from '../jobs/support';

/**
 * One HTTP answer, or what stood for it: `status` 0 when the request got no answer in time or the connection failed.
 */
export interface Answer {
  status: number;
  body: any;
  ms: number;
  error?: string;
  /** The answer's Retry-After, if it had one. */
  retryAfter?: string;
}

/** Every request of the matrix is bounded: a hang is a failure, reported as such, never a stuck run. */
export async function request(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const started = performance.now();
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    const retryAfter = res.headers.get('retry-after') ?? undefined;
    return { status: res.status, body, ms: Math.round(performance.now() - started), ...(retryAfter && { retryAfter }) };
  } catch (err) {
    return {
      status: 0,
      body: null,
      ms: Math.round(performance.now() - started),
      error: (err as Error).name === 'TimeoutError' ? 'timeout' : String((err as Error).cause ?? err),
    };
  }
}

export const SUBMIT_MAPS = '/api/v1/dashboard/client/jobs/maps-scrape/submit';
export const SUBMIT_RESEARCH = '/api/v1/dashboard/client/research/submit';
export const jobStatus = (kind: JobKind, id: string) =>
  kind === 'maps-scrape'
    ? `/api/v1/dashboard/client/jobs/${id}/status`
    : `/api/v1/dashboard/client/research/${id}/status`;

export type JobKind = 'maps-scrape' | 'research';
export interface SubmittedJob {
  kind: JobKind;
  id: string;
  params: any;
  /** Places a maps-scrape job must end with (from the sandbox's data); null for research. */
  expectedResults: number | null;
}

export interface Tenant {
  client_id: string;
  triple: string;
  domain: string;
}

/**
 * The job limits of a tenant of the matrix and the soak: none of its own (0), so its load meets the deployment's
 * capacity guard (JOB_MAX_UNFINISHED, 503) as it always did, not the client's default bounds (429; docs/security.md,
 * "Jobs per tenant"). The fair share of that guard still applies: a lone tenant is refused within its last part.
 */
export const UNBOUNDED_JOBS = { max_unfinished: 0, per_day: 0, per_month: 0 };

/** A client with a content domain, made through the super-admin API, with `jobLimits` as its own job limits. */
export async function createTenant(
  base: string,
  admin: string,
  name: string,
  jobLimits: Record<string, number | null> = UNBOUNDED_JOBS,
): Promise<Tenant> {
  const domain = `${name.toLowerCase().replace(/\W+/g, '-')}.faults.test`;
  const res = await request(base, 'POST', '/api/v1/dashboard/admin/clients', {
    token: admin,
    body: { name, content_domains: [domain], admin_email: `admin@${domain}` },
  });
  if (res.status !== 201) throw new Error(`create client failed: ${res.status} ${JSON.stringify(res.body)}`);
  const limited = await request(base, 'PATCH', `/api/v1/dashboard/admin/clients/${res.body.client_id}`, {
    token: admin,
    body: { job_limits: jobLimits },
  });
  if (limited.status !== 200) throw new Error(`job limits not set: ${limited.status} ${JSON.stringify(limited.body)}`);
  return {
    client_id: res.body.client_id,
    triple: `${res.body.client_id}:${res.body.api_key}:${res.body.api_secret}`,
    domain,
  };
}

/** Maps-scrape jobs slow enough (the sandbox's sbx-slow) to be in flight when the fault hits. */
export function mapsParams(tag: string, i: number) {
  return { query: `${tag} shop${i} sbx-slow-500`, country_code: 'NL', region_codes: ['NL-ZE'], max_locations: 8 };
}

export function researchParams(tag: string) {
  return {
    companies: [1, 2, 3].map((i) => ({
      name: `${tag} company ${i}`,
      domain: `${tag.toLowerCase()}-co${i}-sbx-slow-800.example`,
    })),
  };
}

export async function submitJob(
  base: string,
  tenant: Tenant,
  kind: JobKind,
  params: any,
  timeoutMs?: number,
): Promise<{ answer: Answer; job?: SubmittedJob }> {
  const answer = await request(base, 'POST', kind === 'maps-scrape' ? SUBMIT_MAPS : SUBMIT_RESEARCH, {
    token: tenant.triple,
    body: params,
    timeoutMs,
  });
  if (answer.status !== 200) return { answer };
  const id = kind === 'maps-scrape' ? answer.body.job_id : answer.body.research_id;
  return {
    answer,
    job: { kind, id, params, expectedResults: kind === 'maps-scrape' ? expectedPlaces(params).length : null },
  };
}

/** What a steady stream of requests met: the ids the API acknowledged, and every other outcome. */
export interface Steady {
  acknowledged: string[];
  /** 503 with a detail: an engine was down and the API said so. */
  refused: Answer[];
  /** No process listening (the API killed). */
  unreachable: Answer[];
  /** Anything else (a 500, a timeout...): the matrix fails on these. */
  unexpected: Answer[];
  stop(): Promise<void>;
}

/** Sends `send(n)` every `everyMs` until stopped; `send` answers the acknowledged id, or null. */
function startSteady(
  everyMs: number,
  send: (n: number) => Promise<{ res: Answer; acknowledged: string | null }>,
): Steady {
  const out = {
    acknowledged: [] as string[],
    refused: [] as Answer[],
    unexpected: [] as Answer[],
    unreachable: [] as Answer[],
  };
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      const { res, acknowledged } = await send(n);
      if (acknowledged !== null) out.acknowledged.push(acknowledged);
      else if (res.status === 503 && typeof res.body?.detail === 'string') out.refused.push(res);
      else if (res.status === 0 && res.error !== 'timeout') out.unreachable.push(res);
      else out.unexpected.push(res);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    ...out,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** Content writes at a steady pace; acknowledged: the slugs answered 201. */
export function startWriter(getBase: () => string, tenant: Tenant, tag: string, everyMs = 250): Steady {
  return startSteady(everyMs, async (n) => {
    const slug = `${tag.toLowerCase()}-post-${n}`;
    const body = {
      slug,
      title: `Post ${n + 1}`,
      body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: slug }] }] },
    };
    const res = await request(getBase(), 'POST', '/api/v1/dashboard/content/posts', { token: tenant.triple, body });
    return { res, acknowledged: res.status === 201 ? slug : null };
  });
}

/** A brand of the tenant (its triple acts as the brand's admin); the relays and pin claims act for it. */
export async function createBrand(base: string, tenant: Tenant, tag: string): Promise<string> {
  const brand = await request(base, 'POST', '/api/v1/brands', {
    token: tenant.triple,
    body: { brand_name: `Faults ${tag}`, slug: `faults-${tag.toLowerCase()}` },
  });
  if (brand.status !== 201) throw new Error(`create brand failed: ${brand.status} ${JSON.stringify(brand.body)}`);
  return String(brand.body.brand_id);
}

/**
 * Relayed calls at a steady pace, for a brand of the tenant with a parcel-tracking key (the service's
 * sandbox answers); acknowledged: the calls answered 200, each of which must end up in `relay_usage`.
 */
export async function startRelayer(
  getBase: () => string,
  tenant: Tenant,
  tag: string,
  brandId: string,
  everyMs = 250,
): Promise<Steady> {
  const key = await request(getBase(), 'POST', `/api/v1/brands/${brandId}/integrations`, {
    token: tenant.triple,
    body: {
      provider_name: 'parcel-tracking',
      key_label: 'Faults',
      credentials: { api_key: `faults-${tag}` },
      daily_limit: 100_000,
    },
  });
  if (key.status !== 201) throw new Error(`create key failed: ${key.status} ${JSON.stringify(key.body)}`);
  return startSteady(everyMs, async (n) => {
    const res = await request(getBase(), 'POST', '/api/v1/agent/proxy/parcel-tracking', {
      token: tenant.triple,
      headers: { 'x-brand-id': brandId },
      body: { method: 'GET', path: `/trackings/3S${tag.toUpperCase()}${n}` },
    });
    return { res, acknowledged: res.status === 200 ? String(n) : null };
  });
}

export { expectedPlaces };
