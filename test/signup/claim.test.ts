import { eventually, useTestApi } from '../support/harness';
import { fakeClock } from '../support/fake-clock';
import { verifyDelivery } from '../support/standard-webhooks';
import { PinModel } from '../../src/pins/pin.model';
import { ReservationModel } from '../../src/pins/reservation.model';
import {
  brandCaller,
  callbackReceiver,
  completeSignup,
  confirmPin,
  freshPhone,
  reserve,
  signupLink,
  tokenOf,
  type BrandCaller,
} from './signup-helpers';
import { pinCreatedWorkflowId } from '../../workflows/pin-reservation-api';

describe('a pin claim: confirm-pin, the signup link, resolve and complete', () => {
  const clock = fakeClock();
  const ctx = useTestApi({ PIN_CALLBACK_RETRY_INITIAL_MS: '200', PIN_COMPLETE_WAIT_MS: '10000' }, { clock });
  let agent: BrandCaller;
  beforeAll(async () => {
    agent = await brandCaller(ctx.api, ctx.admin, 'Claims');
  });

  it('reserves, sends the link by SMS, resolves, completes once (done), and POSTs pin_created signed', async () => {
    const receiver = await callbackReceiver([200]);
    try {
      const identifier = '+31612345678';
      const res = await confirmPin(ctx.api, agent, { name: 'bakkerij-de-zon', identifier, callback_url: receiver.url });
      expect(res.status).toBe(202);
      const ttl = new Date(res.body.expires_at).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(23.9 * 3600_000);
      expect(ttl).toBeLessThanOrEqual(24 * 3600_000);
      const link = await signupLink(ctx.api, ctx.admin, identifier);
      expect(link.startsWith(`${ctx.api.url}/signup?token=`)).toBe(true);
      const token = tokenOf(link);

      const claim = await ctx.api.call('GET', `/api/v1/signup/resolve?token=${encodeURIComponent(token)}`);
      expect(claim.status).toBe(200);
      expect(claim.body).toEqual({
        name: 'BAKKERIJ-DE-ZON',
        country_code: 'NL',
        brand_id: agent.brandId,
        identifier_masked: '+31 6 ••• ••• 78',
        maps_byok_key_or_null: null,
      });

      const done = await completeSignup(ctx.api, token, 'BAKKERIJ-DE-ZON');
      expect(done.status).toBe(202);
      expect(done.body).toEqual({ pin_id: 'NL:BAKKERIJ-DE-ZON', state: 'done' });
      const pin = await PinModel.findById('NL:BAKKERIJ-DE-ZON').lean();
      expect(pin).toMatchObject({
        client_id: agent.client.client_id,
        brand_id: agent.brandId,
        reservation_id: res.body.reservation_id,
        gps: { lat: 52.0907, lng: 5.1214 },
      });
      expect(pin!.subscription!.status).toBe('active');
      expect((await ReservationModel.findById('NL:BAKKERIJ-DE-ZON').lean())!.state).toBe('completed');

      // The same completion again: the same pin, nothing new.
      const again = await completeSignup(ctx.api, token, 'bakkerij-de-zon');
      expect(again.body).toEqual({ pin_id: 'NL:BAKKERIJ-DE-ZON', state: 'done' });
      expect(await PinModel.countDocuments({ _id: 'NL:BAKKERIJ-DE-ZON' })).toBe(1);

      const hit = await eventually(async () => receiver.received[0]);
      const body = JSON.parse(hit.body);
      expect(body).toEqual({
        event: 'pin_created',
        pin_id: 'NL:BAKKERIJ-DE-ZON',
        reservation_id: res.body.reservation_id,
        name: 'BAKKERIJ-DE-ZON',
        country_code: 'NL',
        brand_id: agent.brandId,
        created_at: expect.any(String),
      });
      expect(hit.headers['x-pin-reservation-id']).toBe(res.body.reservation_id);
      expect(res.body.callback_secret).toMatch(/^whsec_/); // this reservation's own (test/security/webhook-signing)
      expect(verifyDelivery(res.body.callback_secret, hit.headers, hit.body)).toBe('ok');

      // The name is taken now: a new confirm is refused with free suggestions.
      const taken = await confirmPin(ctx.api, agent, { name: 'BAKKERIJ-DE-ZON', identifier: freshPhone() });
      expect(taken.status).toBe(404);
      expect(taken.body.detail).toBe('name_not_available');
      expect(taken.body.suggestions.length).toBeGreaterThan(0);
      expect(taken.body.suggestions).not.toContain('BAKKERIJ-DE-ZON');
    } finally {
      await receiver.close();
    }
  });

  it('two agents confirming one name at once: one reservation, the other 404 name_not_available', async () => {
    const other = await brandCaller(ctx.api, ctx.admin, 'Rival');
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        confirmPin(ctx.api, i % 2 ? other : agent, { name: 'RACE-NAME', identifier: freshPhone() }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 404, 404, 404, 404, 404]);
    for (const refused of answers.filter((a) => a.status === 404)) {
      expect(refused.body.detail).toBe('name_not_available');
      expect(refused.body.suggestions).not.toContain('RACE-NAME');
    }
    const winner = answers.find((a) => a.status === 202)!;
    expect((await ReservationModel.findById('NL:RACE-NAME').lean())!.reservation_id).toBe(winner.body.reservation_id);
  });

  it('e-mail links work too; another channel is 503 channel_not_available; a bad destination 422', async () => {
    const email = 'owner@bakery.test';
    const res = await confirmPin(ctx.api, agent, { name: 'MAIL-PIN', channel: 'email', identifier: email });
    expect(res.status).toBe(202);
    expect(await signupLink(ctx.api, ctx.admin, email, 'email')).toContain('/signup?token=');
    const token = tokenOf(await signupLink(ctx.api, ctx.admin, email, 'email'));
    const resolved = await ctx.api.call('GET', `/api/v1/signup/resolve?token=${encodeURIComponent(token)}`);
    expect(resolved.body.identifier_masked).toBe('o•••@bakery.test');

    const pigeon = await confirmPin(ctx.api, agent, { name: 'PIGEON', channel: 'pigeon', identifier: freshPhone() });
    expect(pigeon).toMatchObject({ status: 503, body: { detail: 'channel_not_available' } });
    const notE164 = await confirmPin(ctx.api, agent, { name: 'BAD-NUMBER', identifier: '0612345678' });
    expect(notE164.status).toBe(422);
    expect(notE164.body.errors[0].field).toBe('identifier');
    // Neither refused request holds the name.
    expect((await confirmPin(ctx.api, agent, { name: 'BAD-NUMBER', identifier: freshPhone() })).status).toBe(202);
  });

  it('completion: 409 another name or country, 422 without a town, 401 bad token, 404 once replaced', async () => {
    const r = await reserve(ctx.api, ctx.admin, agent, 'CHECKS');
    expect((await completeSignup(ctx.api, r.token, 'OTHER')).status).toBe(409);
    expect((await completeSignup(ctx.api, r.token, 'CHECKS', { country_code: 'BE' })).status).toBe(409);
    const noTown = await completeSignup(ctx.api, r.token, 'CHECKS', {
      structured_address: { address_road: 'Oudegracht' },
    });
    expect(noTown.status).toBe(422);
    expect(noTown.body.errors[0].field).toBe('structured_address.address_settlement');
    expect((await completeSignup(ctx.api, `${r.token}x`, 'CHECKS')).status).toBe(401);
    expect((await completeSignup(ctx.api, 'garbage', 'CHECKS')).status).toBe(401);
    expect(await PinModel.exists({ _id: 'NL:CHECKS' })).toBeNull();
    await ReservationModel.updateOne({ _id: 'NL:CHECKS' }, { reservation_id: '00000000-0000-4000-8000-000000000000' });
    expect((await completeSignup(ctx.api, r.token, 'CHECKS')).status).toBe(404);
  });

  it('check-name: your reserved name is yours, a taken one comes with 10 free others, 429 past 5/s', async () => {
    const r = await reserve(ctx.api, ctx.admin, agent, 'CHECKER');
    const check = (name: string) =>
      ctx.api.call('GET', `/api/v1/signup/check-name?token=${encodeURIComponent(r.token)}&name=${name}`);
    expect((await check('checker')).body).toEqual({ is_available: true, suggestions: [] });
    expect((await check('FREE-ONE')).body).toEqual({ is_available: true, suggestions: [] });
    const taken = await check('RACE-NAME');
    expect(taken.body.is_available).toBe(false);
    expect(taken.body.suggestions.length).toBeGreaterThan(0);
    expect(taken.body.suggestions.length).toBeLessThanOrEqual(10);
    expect(taken.body.suggestions).not.toContain('RACE-NAME');
    // However the burst falls across one-second windows (the checks above only add to the first), at most ten pass.
    const burst = await Promise.all(Array.from({ length: 12 }, () => check('FREE-TWO')));
    const limited = burst.filter((b) => b.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(burst.filter((b) => b.status === 200).length).toBeLessThanOrEqual(10);
    expect(limited[0].body.detail).toMatch(/per second/);
  });

  it('check-name: 60 a minute per token, even at 5 a second (the 61st in the minute is 429)', async () => {
    const r = await reserve(ctx.api, ctx.admin, agent, 'MINUTE-CHECKS');
    const check = () =>
      ctx.api.call('GET', `/api/v1/signup/check-name?token=${encodeURIComponent(r.token)}&name=FREE-THREE`);
    // The windows are fixed UTC minutes of the API's clock, which this test moves: twelve seconds of 5 checks each
    // at the start of a minute, then the 61st in that minute.
    clock.toNextWindow(60_000);
    for (let second = 0; second < 12; second += 1) {
      const answers = await Promise.all(Array.from({ length: 5 }, check));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      clock.advance(1000);
    }
    const over = await check();
    expect(over.status).toBe(429);
    expect(over.body.detail).toMatch(/per minute/);
    expect(over.headers.get('retry-after')).toBe('48');
    clock.toNextWindow(60_000);
    expect((await check()).status).toBe(200);
  });

  it('pin_created is retried on 5xx until delivered, and a 4xx ends delivery without retry', async () => {
    const flaky = await callbackReceiver([500, 503, 200]);
    const refusing = await callbackReceiver([410]);
    try {
      const reservations: string[] = [];
      for (const [name, receiver] of [
        ['FLAKY-HOOK', flaky],
        ['REFUSED-HOOK', refusing],
      ] as const) {
        const r = await reserve(ctx.api, ctx.admin, agent, name, { callback_url: receiver.url });
        expect((await completeSignup(ctx.api, r.token, name)).status).toBe(202);
        reservations.push(r.reservation_id);
      }
      await eventually(async () => (flaky.received.length >= 3 ? true : undefined), 30_000);
      expect(flaky.received.map((h) => JSON.parse(h.body).pin_id)).toEqual([
        'NL:FLAKY-HOOK',
        'NL:FLAKY-HOOK',
        'NL:FLAKY-HOOK',
      ]);
      await eventually(async () => (refusing.received.length >= 1 ? true : undefined));
      // Both deliveries' runs have ended (the refusal is final): no attempt can follow.
      const temporal = ctx.api.rt.engines.temporal;
      for (const id of reservations)
        await temporal.workflow
          .getHandle(pinCreatedWorkflowId(id))
          .result()
          .catch(() => 0);
      expect(refusing.received).toHaveLength(1);
      expect(flaky.received).toHaveLength(3);
    } finally {
      await flaky.close();
      await refusing.close();
    }
  });
});
