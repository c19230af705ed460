/**
 * The parcel-tracking relay called with an agent access token (authentication, acting brand, key choice, limits
 * in Redis, decryption, forwarding, the usage record) side by side with a bare Express route relaying the same
 * call with one line of fetch (the baseline: what any proxy costs), and the sandbox provider called directly for
 * reference: requests per second and p50/p99, at one connection (what the relay adds to a call) and under load
 * (throughput). Target: the relay adds under 3 ms at p50 and keeps at least 0.7x of the bare proxy's throughput.
 *
 *   npm run bench:relay            (BENCH_SECONDS=10 BENCH_CONNECTIONS=50 by default)
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { startSandbox } from '../src/sandbox/server';
import { RelayUsageModel } from '../src/integrations/integration.model';
import { relayUsageStream } from '../src/integrations/usage';
import { startStreamDrain } from '../src/lib/stream-drain';
import { createLogger } from '../src/lib/logger';
import {
  approvedAgentToken,
  benchClient,
  comparedCells,
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
      const bare = await bareProxy(providerBase);
      const direct = () => load(`${providerBase}${PATH}`, { 'tracking-api-key': KEY }, { connections });
      const relayed = () => load(relayUrl, relayHeaders, { method: 'POST', body: relayBody, connections });
      const proxied = () => load(bare.url, relayHeaders, { method: 'POST', body: relayBody, connections });

      // The worker's drain of the usage records runs in this process too, as inside `npm start`.
      const drain = startStreamDrain(api.engines.redis, createLogger('warn'), relayUsageStream);
      let connections = 1;
      const rows: string[][] = [];
      const row = (ours: Figures, base: Figures, direct: Figures) => {
        const ratio = ours.rps / base.rps;
        const added = ours.p50 - base.p50;
        rows.push([
          String(connections),
          ...comparedCells(ours, base),
          added.toFixed(1),
          `${direct.rps.toFixed(0)} (${direct.p50} / ${direct.p99})`,
          String(ours.errors + base.errors),
        ]);
        return { ratio, added };
      };
      const results = [];
      for (const c of [1, CONNECTIONS]) {
        connections = c;
        process.stdout.write(`measuring at ${c} connection(s) (${SECONDS} s each)...\n`);
        results.push(row(await relayed(), await proxied(), await direct()));
      }
      bare.close();
      await drain.flush();
      await drain.stop();
      const stored = await RelayUsageModel.countDocuments({ client_id: client.client_id, kind: 'call' });
      printTable(
        [
          'connections',
          'relay req/s',
          'bare proxy req/s',
          'ratio',
          'relay p50/p99 ms',
          'bare p50/p99 ms',
          'p50 added ms',
          'direct req/s (p50/p99)',
          'errors',
        ],
        rows,
      );
      const [single, loaded] = results;
      process.stdout.write(
        `\ntarget: adds under 3 ms at p50 ` +
          `(1 connection: ${single.added.toFixed(1)} ms, ${verdict(single.added < 3, 'NOT met')}; ` +
          `${CONNECTIONS}: ${loaded.added.toFixed(1)} ms); at least 0.7x of the bare proxy's throughput ` +
          `(1 connection: ${single.ratio.toFixed(2)}x, ${verdict(single.ratio >= 0.7, 'NOT met')}; ` +
          `${CONNECTIONS}: ${loaded.ratio.toFixed(2)}x, ${verdict(loaded.ratio >= 0.7, 'NOT met')})\n` +
          `usage records stored in relay_usage once drained: ${stored}\n${machine(api)}\n`,
      );
    });
  } finally {
    await sandbox.stop();
  }
}

/**
 * The baseline: a bare Express route that relays the same call with one line of fetch (the key from memory,
 * nothing checked, nothing counted).
 */
async function bareProxy(providerBase: string): Promise<{ url: string; close(): void }> {
  const app = express();
  app.post('/relay', express.json(), async (req, res) => {
    res.json(await (await fetch(providerBase + req.body.path, { headers: { 'tracking-api-key': KEY } })).json());
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/relay`, close: () => server.close() };
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
