/**
 * A cheap authenticated read (GET /auth/pat/status, or GET /dashboard/me for callers that are not
 * agents) with each kind of credential, side by side with a bare Express route answering the same
 * JSON from memory: requests per second, p50/p99 latency and the ratio. Target: each at least 0.8x.
 *
 *   npm run bench:auth            (BENCH_SECONDS=10 BENCH_CONNECTIONS=50 by default; also at 1 connection)
 */
import { approvedAgentToken, bareServer, benchClient, machine, sideBySide, withBenchApi } from './support';

const ADMIN = { email: 'bench-admin@agents.example', password: 'bench-password-123' };

async function main() {
  await withBenchApi(
    'auth',
    { ACCESS_REQUEST_RATE_PER_HOUR: '0', BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password },
    async (api) => {
      const { client, triple } = await benchClient(api, 'Bench Agents', 'bench@agents.example', { brand: true });
      const agent = await approvedAgentToken(api, client.client_id, 'dev@agents.example');
      const session = await fetch(`${api.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      }).then((r) => r.json() as Promise<{ access_token: string }>);

      const cases = [
        { name: 'agent token  GET /auth/pat/status', path: '/api/v1/auth/pat/status', token: agent },
        { name: 'triple       GET /dashboard/me', path: '/api/v1/dashboard/me', token: triple },
        { name: 'session      GET /dashboard/me', path: '/api/v1/dashboard/me', token: session.access_token },
      ];
      const bodies: Record<string, unknown> = {};
      for (const c of cases) {
        const res = await fetch(api.url + c.path, { headers: { authorization: `Bearer ${c.token}` } });
        if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${await res.text()}`);
        bodies[`/${cases.indexOf(c)}`] = await res.json();
      }
      const bare = await bareServer(bodies);
      try {
        const comparisons = cases.map((c, i) => ({
          name: c.name,
          url: api.url + c.path,
          headers: { authorization: `Bearer ${c.token}` },
          bareUrl: `${bare.url}/${i}`,
        }));
        await sideBySide(comparisons, 0.8);
        process.stdout.write(`\ntarget: each at least 0.8x of the bare route; ${machine(api)}\n`);
      } finally {
        bare.close();
      }
    },
  );
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
