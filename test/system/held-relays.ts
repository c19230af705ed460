import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type TestApi } from '../support/harness';
import { callFrom, type SourcedResult } from '../support/reverse-proxy';
import { createKey, MAPS_KEY } from '../integrations/helpers';

/**
 * A maps provider (a local server, as every third-party provider in the tests) that answers nothing until the test
 * says so: a relay call to it is a request held in its handler, the honest way to hold the HTTP edge's slots (a
 * slow provider is what holds them in production too). Give the API `RELAY_MAPS_URL: provider.url`.
 */
export interface HeldProvider {
  url: string;
  /** Calls waiting for their answer. */
  waiting(): number;
  /** Answers the `count` oldest waiting calls (all when left out). */
  answer(count?: number): void;
  close(): Promise<void>;
}

export async function startHeldProvider(): Promise<HeldProvider> {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const answer = (count = held.length) => {
    for (const res of held.splice(0, count)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"OK","results":[]}');
    }
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    waiting: () => held.length,
    answer,
    async close() {
      answer();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Runs one step of a setup: as it is, or tried again while the edge refuses it (a test with a low bound). */
export type SetupStep = <T>(step: () => Promise<T>) => Promise<T>;

/**
 * A brand with an active maps key, and a relay call through it (as the client's credential triple, which acts as the
 * brand's admin) from a chosen loopback address (127.0.0.1 when left out): each call waits for the held provider's
 * answer. Each setup request goes through `step`, so that a refused one is tried again alone.
 */
export async function heldRelayCalls(api: TestApi, admin: string, tag: string, step: SetupStep = (run) => run()) {
  const { triple } = await step(() => createClient(api, admin, `Held ${tag}`));
  const brandId = await step(async () => {
    const brand = await api.call('POST', '/api/v1/brands', {
      token: triple,
      body: { brand_name: `Held ${tag}`, slug: `held-${tag}` },
    });
    if (brand.status !== 201) throw new Error(`create brand: ${brand.status} ${JSON.stringify(brand.body)}`);
    return brand.body.brand_id as number;
  });
  await step(() => createKey(api, triple, brandId, { provider_name: 'maps', credentials: { api_key: MAPS_KEY } }));
  const headers = { authorization: `Bearer ${triple}`, 'x-brand-id': String(brandId) };
  return (from = '127.0.0.1'): Promise<SourcedResult> =>
    callFrom(from, `${api.url}/api/v1/agent/proxy/maps/geocode/json`, 'POST', { params: { address: tag } }, headers);
}
