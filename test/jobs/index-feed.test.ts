import { createClient, indexLock, startTestApi, type TestApi } from '../support/harness';
import { resourceWrite, writeResources } from '../../src/idap/resources/resource-writes';
import { resourcesOfJob } from '../../src/idap/resources/resources.service';
import { indexResources } from '../../src/idap/search/index-maintenance';
import { createIndexFeed } from '../../src/jobs/index-feed';
import { createWriteGate } from '../../src/jobs/write-gate';
import type { RunLocked } from '../../src/lib/locks';

/** A job's index feed (src/jobs/index-feed.ts): what it stores becomes searchable during the job. */
describe("a job's index feed", () => {
  let api: TestApi;
  let client: { client_id: string; triple: string };
  const found = async (q: string) => {
    const res = await api.call('GET', `/api/v1/idap/businesses/search?${new URLSearchParams({ q })}`, {
      token: client.triple,
    });
    return res.body.items.map((i: { data: { name: string } }) => i.data.name);
  };

  beforeAll(async () => {
    api = await startTestApi();
    client = await createClient(api, await api.login(), 'Feed Co');
  });
  afterAll(() => api.stop());

  it('indexes what was handed over in steps; a step that fails is reported and left to the follow-up', async () => {
    const jobId = 'feed-job-1';
    const writes = ['Tulip Kiosk', 'Heron Kiosk', 'Otter Kiosk'].map((name) =>
      resourceWrite(client.client_id, 'businesses', name, { name }, { jobId }),
    );
    await writeResources(writes);
    // The first step finds the store down; the steps after it go on.
    let steps = 0;
    const lock: RunLocked = (name, work) =>
      ++steps === 1 ? Promise.reject(new Error('store down')) : indexLock(api)(name, work);
    const failures: unknown[] = [];
    const feed = createIndexFeed(client.client_id, {
      gate: createWriteGate(1),
      lock,
      failed: (err) => failures.push(err),
    });
    // Handed over while the first step runs, the other two go together in the next step.
    for (const w of writes) feed.add([{ type: w.type, id: w.id }]);
    await feed.settled();

    expect(steps).toBe(2);
    expect(failures).toEqual([new Error('store down')]);
    expect((await found('kiosk')).sort()).toEqual(['Heron Kiosk', 'Otter Kiosk']);
    // The job's follow-up index workflow goes through every resource of the job (indexJobResults): the rest too.
    await indexResources(client.client_id, await resourcesOfJob(client.client_id, jobId), indexLock(api));
    expect((await found('kiosk')).sort()).toEqual(['Heron Kiosk', 'Otter Kiosk', 'Tulip Kiosk']);
  });
});
