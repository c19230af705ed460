import { ActivityEventModel } from '../../src/activity/activity-event.model';
import { recordJobOutcome } from '../../src/activity/outcomes';
import { JobModel } from '../../src/jobs/job.model';
import { seedEvents, userActor } from './activity-helpers';
import { startSecondApi } from '../support/second-api';
import { createClient, eventually, useTestApi } from '../support/harness';
import { FAST_RETRIES, SUBMIT, jobPath, waitForStatus } from '../jobs/support';
import { author, doc } from '../content/content-helpers';

const ctx = useTestApi(FAST_RETRIES);
const eventsOf = (clientId: string, filter: Record<string, unknown> = {}) =>
  ActivityEventModel.find({ client_id: clientId, ...filter })
    .sort({ _id: 1 })
    .lean();
const present = async (clientId: string, filter: Record<string, unknown>) => {
  const found = await eventsOf(clientId, filter);
  return found.length ? found : undefined;
};

/** A brand_admin of the client, created by the super_admin and signed in: their user id and session token. */
async function signedInBrandAdmin(clientId: string, email: string, password: string) {
  const created = await ctx.api.call('POST', '/api/v1/dashboard/users', {
    token: ctx.admin,
    body: { email, role: 'brand_admin', client_id: clientId, password },
  });
  expect(created.status).toBe(201);
  return { userId: created.body.user_id as string, token: await ctx.api.login(email, password) };
}

describe('the activity log', () => {
  it('records a write with its actor, role and subject, and nothing for reads or refused writes', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Log');
    expect((await ctx.api.call('GET', '/api/v1/digest-settings', { token: acme.triple })).status).toBe(200);
    expect(
      (await ctx.api.call('PATCH', '/api/v1/digest-settings', { token: acme.triple, body: { cadence: 'hourly' } }))
        .status,
    ).toBe(422);
    expect(
      (await ctx.api.call('PATCH', '/api/v1/digest-settings', { token: acme.triple, body: { cadence: 'daily' } }))
        .status,
    ).toBe(200);
    const [event] = await eventually(() => present(acme.client_id, { action: 'updateDigestSettings' }));
    expect(event).toMatchObject({
      actor_id: acme.client_id,
      actor_kind: 'client',
      role: 'client_user',
      action: 'updateDigestSettings',
    });
    await ctx.api.rt.worker!.drain.flush();
    // The client's creation by the super_admin is the client's first event; the read and the refused write left none.
    expect((await eventsOf(acme.client_id)).map((e) => e.action)).toEqual(['createClient', 'updateDigestSettings']);
  });

  it('records a super_admin acting for a client, logins, and a published post as shipped with its title', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Publish');
    const { userId: adaId, token: ada } = await signedInBrandAdmin(
      acme.client_id,
      'ada@acme-publish.test',
      'ada-password-123',
    );
    const as = author(ctx.api, ada);
    const post = await as.create('posts', { slug: 'spring-hours', title: 'Spring hours', body: doc('Open late.') });
    await as.publish('posts', post.id);
    const published = await eventually(() => present(acme.client_id, { action: 'publishPost' }));
    expect(published[0]).toMatchObject({
      actor_id: adaId,
      actor_kind: 'user',
      actor_name: 'ada@acme-publish.test',
      role: 'brand_admin',
      subject_kind: 'post',
      subject_id: post.id,
      shipped: 'posts_published',
      label: 'Spring hours',
    });
    await ctx.api.rt.worker!.drain.flush();
    const actions = (await eventsOf(acme.client_id)).map((e) => [e.action, e.role]);
    expect(actions).toEqual([
      ['createClient', 'super_admin'],
      ['createDashboardUser', 'super_admin'],
      ['auth.login', 'brand_admin'],
      ['createPost', 'brand_admin'],
      ['publishPost', 'brand_admin'],
    ]);
  });

  it('records a submitted job and, from the worker, its completion as shipped by the submitter', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Jobs Log');
    const res = await ctx.api.call('POST', SUBMIT, {
      token: acme.triple,
      body: { query: 'florist', country_code: 'BE', max_locations: 1, max_results: 3 },
    });
    expect(res.status).toBe(200);
    await waitForStatus(ctx.api, acme.triple, jobPath(res.body.job_id), ['completed'], 60_000);
    const [done] = await eventually(() => present(acme.client_id, { action: 'job.completed' }));
    expect(done).toMatchObject({
      actor_id: acme.client_id,
      actor_kind: 'client',
      subject_id: res.body.job_id,
      shipped: 'jobs_completed',
      label: 'florist (BE)',
    });
    const [submitted] = await eventsOf(acme.client_id, { action: 'submitMapsScrapeJob' });
    expect(submitted).toMatchObject({ subject_kind: 'job', subject_id: res.body.job_id });
  }, 90_000);

  it('credits a job to the submitter its record names, without looking for the submit in the log', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Submitter');
    const { userId, token: bea } = await signedInBrandAdmin(
      acme.client_id,
      'bea@acme-submitter.test',
      'bea-password-123',
    );
    const res = await ctx.api.call('POST', SUBMIT, {
      token: bea,
      body: { query: 'baker', country_code: 'BE', max_locations: 1, max_results: 2 },
    });
    expect(res.status).toBe(200);
    const beaActor = userActor(userId, 'bea@acme-submitter.test', 'brand_admin');
    expect((await JobModel.findOne({ _id: res.body.job_id, client_id: acme.client_id }).lean())?.submitted_by).toEqual(
      beaActor,
    );
    await waitForStatus(ctx.api, bea, jobPath(res.body.job_id), ['completed'], 60_000);
    const [done] = await eventually(() => present(acme.client_id, { action: 'job.completed' }));
    expect(done).toMatchObject({ actor_id: beaActor.id, actor_kind: 'user', role: 'brand_admin' });

    // A job whose log begins with someone else's event about it (a record from before submitted_by would be
    // credited to them): the record's submitter wins, so its end does not read the log.
    const other = userActor('u-other', 'other@acme-submitter.test');
    await seedEvents(acme.client_id, other, ['2026-01-01T00:00:00Z'], { action: 'cancelJob' });
    await ActivityEventModel.updateOne({ client_id: acme.client_id, actor_id: other.id }, { subject_id: 'job-named' });
    await recordJobOutcome(ctx.api.rt.modules.activity.recorder, {
      _id: 'job-named',
      client_id: acme.client_id,
      submitted_by: beaActor,
      type: 'maps-scrape',
      status: 'failed',
      completed_at: new Date(),
    });
    await ctx.api.rt.worker!.drain.flush();
    expect(await eventsOf(acme.client_id, { subject_id: 'job-named', action: 'job.failed' })).toMatchObject([
      { actor_id: beaActor.id, actor_kind: 'user', actor_name: 'bea@acme-submitter.test' },
    ]);
  }, 90_000);

  it('keeps an action an API process acknowledged, although the process is killed right after', async () => {
    const acme = await createClient(ctx.api, ctx.admin, 'Acme Killed');
    const second = await startSecondApi(ctx.api);
    let killed = false;
    try {
      const res = await fetch(`${second.url}/api/v1/digest-settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${acme.triple}`, 'content-type': 'application/json' },
        body: JSON.stringify({ cadence: 'weekly' }),
      });
      second.stop(); // SIGKILL as soon as the acknowledgement arrived: no graceful shutdown, nothing flushed
      killed = true;
      expect(res.status).toBe(200);
    } finally {
      if (!killed) second.stop();
    }
    const [event] = await eventually(() => present(acme.client_id, { action: 'updateDigestSettings' }));
    expect(event).toMatchObject({ actor_id: acme.client_id, actor_kind: 'client' });
  }, 90_000);
});
