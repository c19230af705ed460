import { expectedPlaces } from '../jobs/support';

/** One HTTP answer, or what stood for it: `status` 0 when the request got no answer in time or the connection failed. */
export interface Answer {
  status: number;
  body: any;
  ms: number;
  error?: string;
}

/** Every request of the matrix is bounded: a hang is a failure, reported as such, never a stuck run. */
export async function request(base: string, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<Answer> {
  const started = performance.now();
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(`${base}${path}`, {
      method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { status: 0, body: null, ms: Math.round(performance.now() - started), error: (err as Error).name === 'TimeoutError' ? 'timeout' : String((err as Error).cause ?? err) };
  }
}

export const SUBMIT_MAPS = '/api/v1/dashboard/client/jobs/maps-scrape/submit';
export const SUBMIT_RESEARCH = '/api/v1/dashboard/client/research/submit';
export const jobStatus = (kind: JobKind, id: string) =>
  kind === 'maps-scrape' ? `/api/v1/dashboard/client/jobs/${id}/status` : `/api/v1/dashboard/client/research/${id}/status`;

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

/** A client with a content domain, made through the super-admin API. */
export async function createTenant(base: string, admin: string, name: string): Promise<Tenant> {
  const domain = `${name.toLowerCase().replace(/\W+/g, '-')}.faults.test`;
  const res = await request(base, 'POST', '/api/v1/dashboard/admin/clients', {
    token: admin, body: { name, content_domains: [domain], admin_email: `admin@${domain}` },
  });
  if (res.status !== 201) throw new Error(`create client failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { client_id: res.body.client_id, triple: `${res.body.client_id}:${res.body.api_key}:${res.body.api_secret}`, domain };
}

/** Maps-scrape jobs slow enough (the sandbox's sbx-slow) to be in flight when the fault hits. */
export function mapsParams(tag: string, i: number) {
  return { query: `${tag} shop${i} sbx-slow-500`, country_code: 'NL', region_codes: ['NL-ZE'], max_locations: 8 };
}

export function researchParams(tag: string) {
  return { companies: [1, 2, 3].map((i) => ({ name: `${tag} company ${i}`, domain: `${tag.toLowerCase()}-co${i}-sbx-slow-800.example` })) };
}

export async function submitJob(base: string, tenant: Tenant, kind: JobKind, params: any, timeoutMs?: number): Promise<{ answer: Answer; job?: SubmittedJob }> {
  const answer = await request(base, 'POST', kind === 'maps-scrape' ? SUBMIT_MAPS : SUBMIT_RESEARCH, { token: tenant.triple, body: params, timeoutMs });
  if (answer.status !== 200) return { answer };
  const id = kind === 'maps-scrape' ? answer.body.job_id : answer.body.research_id;
  return { answer, job: { kind, id, params, expectedResults: kind === 'maps-scrape' ? expectedPlaces(params).length : null } };
}

/**
 * Content writes at a steady pace for as long as it runs; keeps the slugs the API acknowledged (201),
 * the 503s with a detail, the requests that found no process listening (the API killed), and every
 * other answer (a 500, a timeout...), which the matrix fails on.
 */
export function startWriter(getBase: () => string, tenant: Tenant, tag: string, everyMs = 250) {
  const acknowledged: string[] = [];
  const refused: Answer[] = [];
  const unexpected: Answer[] = [];
  const unreachable: Answer[] = [];
  let n = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const slug = `${tag.toLowerCase()}-post-${n++}`;
      const body = { slug, title: `Post ${n}`, body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: slug }] }] } };
      const res = await request(getBase(), 'POST', '/api/v1/dashboard/content/posts', { token: tenant.triple, body });
      if (res.status === 201) acknowledged.push(slug);
      else if (res.status === 503 && typeof res.body?.detail === 'string') refused.push(res);
      else if (res.status === 0 && res.error !== 'timeout') unreachable.push(res);
      else unexpected.push(res);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    acknowledged, refused, unexpected, unreachable,
    async stop() {
      running = false;
      await loop;
    },
  };
}

export { expectedPlaces };
