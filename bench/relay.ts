/**
 * The parcel-tracking relay called with an agent access token (authentication, acting brand, key choice, limits
 * in Redis, decryption, forwarding, the usage record) side by side with calling the same sandbox provider directly
 * with the key: requests per second and p50/p99, at one connection (what the relay adds to a call) and under
 * load (throughput). Target: the relay adds under 5 ms at p50 and keeps at least 0.7x of the direct
 * throughput.
 *
 *   npm run bench:relay            (BENCH_SECONDS=10 BENCH_CONNECTIONS=50 by default)
 */
import { startSandbox } from '../src/sandbox/server';
import { RelayUsageModel } from '../src/integrations/integration.model';
import { relayUsageStream } from '../src/integrations/usage';
import { startStreamDrain } from '../src/lib/stream-drain';
import { createLogger } from '../src/lib/logger';
import {
  approvedAgentToken,
  benchClient,
  CONNECTIONS,
  load,
  machine,
  printTable,
  SECONDS,
  verdict,
  withBenchApi,
  type Figures,
} from './support';

const PATH = '/trackings/3SABCD1234567';
const KEY = 'bench-parcel-key-0001';

async function main() {
  const sandbox = await startSandbox();
  const providerBase = `${sandbox.url}/parcel-tracking/v4`;
  try {
    await withBenchApi('relay', { RELAY_PARCEL_TRACKING_URL: providerBase }, async (api) => {
      const { client, triple } = await benchClient(api, 'Bench Relay', 'bench@relay.example', { brand: true });
      const created = await fetch(`${api.url}/api/v1/brands/1/integrations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${triple}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          provider_name: 'parcel-tracking',
          key_label: 'bench',
          credentials: { api_key: KEY },
          is_primary: true,
        }),
      });
      if (created.status !== 201) throw new Error(`create key: ${created.status} ${await created.text()}`);

      // The relays' caller: an agent access token acting for its brand.
      const agent = await approvedAgentToken(api, client.client_id, 'dev@relay.example');
      const relayUrl = `${api.url}/api/v1/agent/proxy/parcel-tracking`;
      const relayHeaders = { authorization: `Bearer ${agent}`, 'content-type': 'application/json' };
      const relayBody = JSON.stringify({ method: 'GET', path: PATH });
      const check = await fetch(relayUrl, { method: 'POST', headers: relayHeaders, body: relayBody });
      if (check.status !== 200) throw new Error(`relay: ${check.status} ${await check.text()}`);
      const direct = () => load(`${providerBase}${PATH}`, { 'tracking-api-key': KEY }, { connections });
      const relayed = () => load(relayUrl, relayHeaders, { method: 'POST', body: relayBody, connections });

      // The worker's drain of the usage records runs in this process too, as inside `npm start`.
      const drain = startStreamDrain(api.engines.redis, createLogger('warn'), relayUsageStream);
      let connections = 1;
      const rows: string[][] = [];
      const row = (name: string, ours: Figures, base: Figures) => {
        const ratio = ours.rps / base.rps;
        rows.push([
          name,
          ours.rps.toFixed(0),
          base.rps.toFixed(0),
          `${ratio.toFixed(2)}x`,
          `${ours.p50} / ${ours.p99}`,
          `${base.p50} / ${base.p99}`,
          `${(ours.p50 - base.p50).toFixed(1)}`,
          String(ours.errors),
        ]);
        return { ratio, added: ours.p50 - base.p50 };
      };
      process.stdout.write(`measuring at 1 connection (${SECONDS} s each)...\n`);
      const single = row('relay vs direct, 1 connection', await relayed(), await direct());
      connections = CONNECTIONS;
      process.stdout.write(`measuring at ${CONNECTIONS} connections (${SECONDS} s each)...\n`);
      const loaded = row(`relay vs direct, ${CONNECTIONS} connections`, await relayed(), await direct());
      await drain.flush();
      await drain.stop();
      const stored = await RelayUsageModel.countDocuments({ client_id: client.client_id, kind: 'call' });
      printTable(
        ['case', 'req/s', 'direct req/s', 'ratio', 'p50/p99 ms', 'direct p50/p99 ms', 'p50 added ms', 'errors'],
        rows,
      );
      process.stdout.write(
        `\ntarget: adds under 5 ms at p50 ` +
          `(1 connection: ${single.added.toFixed(1)} ms, ${verdict(single.added < 5, 'NOT met')}); ` +
          'at least 0.7x of direct throughput ' +
          `(${loaded.ratio.toFixed(2)}x, ${verdict(loaded.ratio >= 0.7, 'NOT met')})\n` +
          `usage records stored in relay_usage once drained: ${stored}\n${machine(api)}\n`,
      );
    });
  } finally {
    await sandbox.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
