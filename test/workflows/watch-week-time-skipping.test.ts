import { status } from '@grpc/grpc-js';
import { createActivities } from '../../activities';
import { watchRunWorkflow } from '../../workflows/watches';
import { watchRunWorkflowId } from '../../workflows/watches-api';
import { createClient, eventually, useTestApi } from '../support/harness';
import { useTimeSkipping } from '../support/time-skipping';
import { SMALL_MAPS, WATCHES, businessRefs, watchPath } from '../watches/watch-helpers';

const DAY = 86_400_000;

/**
 * A week of a watch in seconds. Temporal's time-skipping test server has no Schedules, so the week is tested in two
 * halves that meet: the dev server (the API's Temporal) computes the watch's schedule, its run times for a week, and
 * the time-skipping server runs the watch's run workflow at each of those times, its clock moved there, with the
 * service's own activities against the real MongoDB, Redis and sandbox provider.
 */
describe('a watch over a week', () => {
  // No search-index run after each job: a child its job abandons would hold the time-skipping clock back (its end
  // is never delivered to a parent that has closed), and the runs count new leads without the index.
  const ctx = useTestApi({ JOB_INDEX_RESULTS: 'false' });
  const ts = useTimeSkipping();

  it("the time-skipping test server does not implement Schedules (the reason for this file's two halves)", async () => {
    const refused = await ts.env.client.schedule
      .create({
        scheduleId: 'no-schedules-here',
        spec: { intervals: [{ every: '1 day' }] },
        action: { type: 'startWorkflow', workflowType: watchRunWorkflow, taskQueue: 'none', args: [] as never },
      })
      .then(
        () => null,
        (err: { cause?: { code?: number } }) => err,
      );
    expect(refused?.cause?.code).toBe(status.UNIMPLEMENTED);
  });

  it('runs daily at the times Temporal computed: all new first, then the one that opened, else none', async () => {
    const { api } = ctx;
    const client = await createClient(api, ctx.admin, 'Week Watcher');
    const created = await api.call('POST', WATCHES, {
      token: client.triple,
      body: {
        name: 'Bakeries, daily',
        maps_scrape: SMALL_MAPS,
        cadence: { cron: '0 7 * * *', time_zone: 'Europe/Amsterdam' },
      },
    });
    // With its detail: toMatchObject's diff would leave out the body, which says why a create was refused.
    expect([created.status, created.body?.detail]).toEqual([201, undefined]);
    const watchId = created.body.watch_id;
    // Paused on the dev server, which still computes its times: only the time-skipping server runs it here.
    expect((await api.call('POST', watchPath(watchId, 'pause'), { token: client.triple })).status).toBe(200);
    const schedule = await api.rt.engines.temporal.schedule.getHandle(created.body.schedule_id).describe();
    const week = schedule.info.nextActionTimes.slice(0, 7);
    expect(week).toHaveLength(7);
    for (let i = 1; i < week.length; i++) expect(week[i].getTime() - week[i - 1].getTime()).toBe(DAY);

    // The run starts its job's workflow on the bulk task queue, as in production: this worker polls it.
    const activities = createActivities(api.rt.modules);
    const { worker, taskQueue } = await ts.worker(activities, api.config.bulkTaskQueue);
    const sandbox = api.rt.worker!.providers.sandbox!;
    await worker.runUntil(async () => {
      for (const [day, at] of week.entries()) {
        await ts.env.sleep(at.getTime() - (await ts.env.currentTimeMs()));
        if (day === 3) sandbox.openings.open(SMALL_MAPS.query); // a bakery opens between the third and fourth run
        const run = await ts.env.client.workflow.start(watchRunWorkflow, {
          taskQueue,
          workflowId: `${watchRunWorkflowId(watchId)}-${at.toISOString()}`,
          args: [{ watch_id: watchId, client_id: client.client_id }],
        });
        // Its end is waited for without the client's result(), which lets the server skip time while it waits: an
        // idle server jumps ahead, and the next run would start years after its time. Here the run's clock is real.
        await eventually(async () => ((await run.describe()).status.name === 'COMPLETED' ? true : undefined), 60_000);
      }
    });

    const all = businessRefs(client.client_id, SMALL_MAPS);
    const opened = businessRefs(client.client_id, SMALL_MAPS, 1).filter((ref) => !all.includes(ref));
    expect(opened).toHaveLength(1);
    const runs = (await api.call('GET', watchPath(watchId, 'runs'), { token: client.triple })).body.runs.reverse();
    expect(runs.map((r: { status: string; new_leads_count: number }) => [r.status, r.new_leads_count])).toEqual([
      ['completed', all.length],
      ['completed', 0],
      ['completed', 0],
      ['completed', 1],
      ['completed', 0],
      ['completed', 0],
      ['completed', 0],
    ]);
    for (const [day, run] of runs.entries()) {
      // Each run was made at its time on the skipped clock (plus the moments it took to start).
      const late = Date.parse(run.scheduled_at) - week[day].getTime();
      expect({ day, late: late >= 0 && late < 60_000 }).toEqual({ day, late: true });
    }
    expect(runs[3]).toMatchObject({ new_leads_count: 1, new_leads: opened });
    expect([...runs[0].new_leads].sort()).toEqual([...all].sort());
    // watch.new_leads was announced for the first run and the fourth, and for no other.
    const stream = await api.rt.engines.redis.xrange(`events:client:${client.client_id}`, '-', '+');
    const announced = stream.filter(([, f]) => f[1] === 'watch.new_leads').map(([, f]) => JSON.parse(f[3]).job_id);
    expect(announced).toEqual([runs[0].job_id, runs[3].job_id]);
    await api.call('DELETE', watchPath(watchId), { token: client.triple });
  });
});
