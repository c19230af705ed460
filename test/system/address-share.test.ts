import { httpRequestsInFlight } from '../../src/lib/metrics';
import { ADMIN, eventually, startTestApi, type TestApi } from '../support/harness';
import { callFrom } from '../support/reverse-proxy';
import { heldRelayCalls, startHeldProvider, type HeldProvider } from './held-relays';

const CAPACITY = 8;
const BUSY = /^Service busy \(8 requests are in progress\)/;
const OVER_SHARE = 'Service busy (this address holds its share of the 8 requests in progress); retry later';
/** Two callers, told apart by the loopback address they connect from (127.0.0.0/8 is all on `lo`). */
const FIRST = '127.0.0.2';
const SECOND = '127.0.0.3';

/**
 * Each address's share of the HTTP edge's bound (docs/security.md, "Addresses"). The requests holding slots are
 * relay calls waiting for a provider the test holds, so which request holds what is decided by the test alone.
 */
describe("one address's share of the requests in progress", () => {
  let provider: HeldProvider;
  let api: TestApi;
  let relay: Awaited<ReturnType<typeof heldRelayCalls>>;
  beforeAll(async () => {
    provider = await startHeldProvider();
    api = await startTestApi({
      HTTP_MAX_CONCURRENT_REQUESTS: String(CAPACITY),
      RELAY_MAPS_URL: provider.url,
      RELAY_TIMEOUT_MS: '120000', // the provider is held as long as the test says, never timed out meanwhile
    });
    relay = await heldRelayCalls(api, await api.login(), 'share');
  }, 60_000);
  afterAll(async () => {
    await provider?.close();
    await api?.stop();
  });

  const inFlight = async () => (await httpRequestsInFlight.get()).values[0]?.value ?? 0;
  const login = (from: string) =>
    callFrom(from, `${api.url}/api/v1/auth/login`, 'POST', { email: ADMIN.email, password: ADMIN.password });

  it('lets one address alone use the whole bound, and another address in even then; then each keeps room to grow', async () => {
    // The first address alone takes every slot (a load test from one machine, or a proxy without TRUST_PROXY)...
    const first = Array.from({ length: CAPACITY }, () => relay(FIRST));
    await eventually(async () => (provider.waiting() === CAPACITY ? true : undefined));
    const refused = await relay(FIRST);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.detail).toMatch(BUSY);

    // ...and the second address still gets in: a login, and a call the provider holds too.
    expect((await login(SECOND)).status).toBe(200);
    const second = [relay(SECOND)];
    await eventually(async () => (provider.waiting() === CAPACITY + 1 ? true : undefined));

    // Half of the first address's calls end: 4 + 1 in progress of 8, so 3 slots free.
    provider.answer(CAPACITY / 2);
    expect((await Promise.all(first.splice(0, CAPACITY / 2))).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await eventually(async () => ((await inFlight()) === CAPACITY / 2 + 1 ? true : undefined));
    // The first address takes more while that leaves the second its headroom (ceil(8 / 16) = 1 slot): two more.
    first.push(relay(FIRST));
    await eventually(async () => (provider.waiting() === CAPACITY / 2 + 2 ? true : undefined));
    first.push(relay(FIRST));
    await eventually(async () => (provider.waiting() === CAPACITY / 2 + 3 ? true : undefined));
    // One slot free, the second address's headroom: the first, past its max-min share (6 of 8 beside the second's
    // 1 + 1), is refused, while the second, within its share, gets in.
    const overShare = await relay(FIRST);
    expect(overShare.status).toBe(503);
    expect(overShare.headers['retry-after']).toBe('1');
    expect(overShare.body.detail).toBe(OVER_SHARE);
    second.push(relay(SECOND));
    await eventually(async () => (provider.waiting() === CAPACITY / 2 + 4 ? true : undefined));

    provider.answer();
    expect((await Promise.all([...first, ...second])).every((r) => r.status === 200)).toBe(true);
    await eventually(async () => ((await inFlight()) === 0 ? true : undefined));
  });
});
