import net from 'node:net';
import { BrandModel } from '../../src/brands/brand.model';
import { approvedToken } from '../agents/agent-helpers';
import { expectedPlaces } from '../jobs/support';
import { createClient, type TestApi } from '../support/harness';

/** A small maps-scrape job: two locations of one region, done in seconds by the sandbox provider. */
export const SMALL_JOB = { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 2 };
export const SMALL_JOB_PLACES = () => expectedPlaces(SMALL_JOB);

/** A client with a brand and an approved agent token that may read and submit jobs. */
export async function agentOf(api: TestApi, admin: string, name: string, brandId: number) {
  const client = await createClient(api, admin, name);
  await BrandModel.create({ _id: brandId, client_id: client.client_id, brand_name: name, slug: `brand-${brandId}` });
  const { token } = await approvedToken(api, admin, client, { requested_scopes: ['jobs:read', 'jobs:submit'] });
  return { client, token };
}

/**
 * A TCP proxy in front of the API whose connections can be cut, as a network drop cuts them; it records the
 * Last-Event-ID header of each request that passes.
 */
export async function droppableProxy(target: string) {
  const { port, hostname } = new URL(target);
  const sockets = new Set<net.Socket>();
  const lastEventIds: (string | null)[] = [];
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(port), hostname);
    sockets.add(inbound).add(outbound);
    inbound.once('data', (head) => {
      const header = /^last-event-id:(.*)$/im.exec(head.toString('latin1'));
      lastEventIds.push(header ? header[1].trim() : null);
    });
    inbound.pipe(outbound).pipe(inbound);
    const forget = () => (inbound.destroy(), outbound.destroy(), sockets.delete(inbound), sockets.delete(outbound));
    inbound.on('close', forget).on('error', forget);
    outbound.on('close', forget).on('error', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    lastEventIds,
    drop: () => sockets.forEach((s) => s.destroy()),
    close: () => new Promise((resolve) => (sockets.forEach((s) => s.destroy()), server.close(resolve))),
  };
}
