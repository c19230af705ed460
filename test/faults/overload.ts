import { SUBMIT_MAPS, request, type Answer, type Tenant } from './workload';

/**
 * More clients at once than the service admits (the matrix runs it with HTTP_MAX_CONCURRENT_REQUESTS=32): each of
 * `clients` submits one job, all at the same moment, then reads the tenant's job list and its content back to back
 * until stopped, ignoring Retry-After as a flood does. What it keeps: the jobs answered 200 (each must complete),
 * how many answers were refusals (503 with a detail), and anything else (a 500, a timeout: the matrix fails on it).
 */
export function startOverload(base: () => string, tenant: Tenant, tag: string, clients = 96) {
  const accepted: string[] = [];
  let refused = 0;
  let answered = 0;
  const unexpected: Answer[] = [];
  let running = true;
  const tally = (res: Answer, ok: number) => {
    if (res.status === ok) answered += 1;
    else if (res.status === 503 && typeof res.body?.detail === 'string' && res.retryAfter) refused += 1;
    else unexpected.push(res);
  };
  const client = async (i: number) => {
    const params = { query: `${tag} overload${i}`, country_code: 'LU', max_locations: 1, max_results: 2 };
    const submit = await request(base(), 'POST', SUBMIT_MAPS, { token: tenant.triple, body: params });
    tally(submit, 200);
    if (submit.status === 200) accepted.push(submit.body.job_id);
    for (let n = 0; running; n++) {
      if (n % 2) tally(await request(base(), 'GET', '/api/v1/dashboard/client/jobs', { token: tenant.triple }), 200);
      else
        tally(
          await request(base(), 'GET', '/api/v1/content/posts', { headers: { 'x-content-domain': tenant.domain } }),
          200,
        );
    }
  };
  const all = Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
  return {
    accepted,
    unexpected,
    figures: () => ({ clients, jobs_accepted: accepted.length, answered_200: answered, refused_503: refused }),
    async stop() {
      running = false;
      await all;
    },
  };
}

export type Overload = ReturnType<typeof startOverload>;
