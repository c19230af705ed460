import { createClient, startTestApi, type TestApi } from '../support/harness';
import { startTcpHold, type TcpHold } from '../support/tcp-hold';
import { SMALL_MAPS, WATCHES, watchPath } from './watch-helpers';

/**
 * A watch's answer when Temporal does not tell its next run times in time. Describing a schedule is a query its
 * scheduler workflow answers on the server's own worker, which a loaded server may take seconds to do right after
 * a create: the create, update or resume was done by then, so its answer leaves the times out instead of being a 503
 * (after which a client would make the watch again). Every single-watch answer reads the times the same way; here
 * the API reaches Temporal through a hop the test holds, so "Temporal does not answer" is deterministic.
 */
describe("a watch's next run times when Temporal does not answer in time", () => {
  let hop: TcpHold;
  let api: TestApi;
  beforeAll(async () => {
    hop = await startTcpHold(`tcp://${process.env.TEMPORAL_ADDRESS}`);
    api = await startTestApi({ TEMPORAL_ADDRESS: new URL(hop.url).host });
  });
  afterAll(async () => {
    hop?.release();
    await api?.stop();
    await hop?.close();
  });

  it('answers the watch without them (not a 503), and with them once Temporal answers again', async () => {
    const client = await createClient(api, await api.login(), 'Slow Schedules');
    const created = await api.call('POST', WATCHES, {
      token: client.triple,
      body: { name: 'Bakeries, daily', maps_scrape: SMALL_MAPS, cadence: { cron: '0 7 * * *' } },
    });
    expect(created).toMatchObject({ status: 201, body: { state: 'active', next_runs: expect.any(Array) } });
    const { next_runs: times, ...watch } = created.body;
    expect(times).toHaveLength(10);

    hop.hold(); // from here Temporal receives nothing until release()
    const held = await api.call('GET', watchPath(watch.watch_id), { token: client.triple });
    expect(held.status).toBe(200);
    expect(held.body).toEqual(watch); // the record as it is, its last run none, the times left out

    hop.release();
    const answered = await api.call('GET', watchPath(watch.watch_id), { token: client.triple });
    expect(answered).toMatchObject({ status: 200, body: { ...watch, next_runs: times } });
  });
});
