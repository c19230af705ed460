import net from 'node:net';
import { BrandModel } from '../../src/brands/brand.model';
import { approvedToken, NO_LIMITS } from '../agents/agent-helpers';
import { expectedPlaces } from '../jobs/support';
import { createClient, type TestApi } from '../support/harness';

/** A small maps-scrape job: two locations of one region, done in seconds by the sandbox provider. */
export const SMALL_JOB = { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 2 };
export const SMALL_JOB_PLACES = () => expectedPlaces(SMALL_JOB);
/** What a watch runs in these tests: another subject than SMALL_JOB's, so its first run finds everything new. */
export const WATCHED_JOB = { ...SMALL_JOB, query: 'florist' };
export const WATCHED_JOB_PLACES = () => expectedPlaces(WATCHED_JOB);

/**
 * A client with a brand and an approved agent token that may read and submit jobs, approved without limits (the
 * brand's default requests per minute cleared): the clients' tests poll job status every few milliseconds.
 */
export async function agentOf(api: TestApi, admin: string, name: string, brandId: number) {
  const client = await createClient(api, admin, name);
  await BrandModel.create({ _id: brandId, client_id: client.client_id, brand_name: name, slug: `brand-${brandId}` });
  const scopes = { requested_scopes: ['jobs:read', 'jobs:submit'] };
  const { token } = await approvedToken(api, admin, client, scopes, NO_LIMITS);
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

/**
 * A TCP proxy in front of the API that loses the answer to the first request whose request line starts with
 * `requestLine` (say `POST /api/v1/...`): the request reaches the service, which does the work, and the connection
 * is cut as its answer starts to come back, as a dropped network cuts it. It records the Idempotency-Key of each
 * such request that passes.
 */
export async function answerLosingProxy(target: string, requestLine: string) {
  const { port, hostname } = new URL(target);
  const keys: (string | null)[] = [];
  let lost = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(port), hostname);
    sockets.add(inbound).add(outbound);
    let loseAnswer = false;
    inbound.on('data', (chunk) => {
      const head = chunk.toString('latin1');
      if (head.startsWith(requestLine)) {
        keys.push(/^idempotency-key:(.*)$/im.exec(head)?.[1].trim() ?? null);
        if (lost === 0) loseAnswer = true;
      }
      outbound.write(chunk);
    });
    outbound.on('data', (chunk) => {
      if (!loseAnswer) return void inbound.write(chunk);
      lost++;
      inbound.destroy();
      outbound.destroy();
    });
    const forget = () => (inbound.destroy(), outbound.destroy(), sockets.delete(inbound), sockets.delete(outbound));
    inbound
      .on('close', forget)
      .on('error', forget)
      .on('end', () => outbound.end());
    outbound
      .on('close', forget)
      .on('error', forget)
      .on('end', () => inbound.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    /** The Idempotency-Key of each matching request, in order (null: it had none). */
    keys,
    lostAnswers: () => lost,
    close: () => new Promise((resolve) => (sockets.forEach((s) => s.destroy()), server.close(resolve))),
  };
}
