import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { useTestApi } from '../support/harness';
import { ReservationModel } from '../../src/pins/reservation.model';
import { brandCaller, confirmPin, type BrandCaller } from './signup-helpers';

const REJECTED = '+15005550001'; // Twilio's magic "invalid number"
const BAD_CREDENTIAL_SID = 'ACbadbadbadbadbadbadbadbadbadbad00';
const sent: { to: string; body: string }[] = [];

/**
 * A local stand-in for Twilio's Messages API in its wire format: 21211 for one number, 20003 for one account, 201
 * otherwise.
 */
const twilio = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const form = new URLSearchParams(raw);
    res.setHeader('content-type', 'application/json');
    if (req.url?.includes(BAD_CREDENTIAL_SID)) {
      res.statusCode = 401;
      return res.end(JSON.stringify({ code: 20003, message: 'Authenticate', status: 401 }));
    }
    if (form.get('To') === REJECTED) {
      res.statusCode = 400;
      return res.end(
        JSON.stringify({
          code: 21211,
          message: `The 'To' number ${REJECTED} is not a valid phone number.`,
          status: 400,
        }),
      );
    }
    sent.push({ to: form.get('To')!, body: form.get('Body')! });
    res.statusCode = 201;
    res.end(JSON.stringify({ sid: `SM${Date.now()}`, status: 'queued', to: form.get('To'), body: form.get('Body') }));
  });
});

// The APIs below read their env when their beforeAll runs, after this one has given the stand-in a port.
const good: Record<string, string> = {
  TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000001',
  TWILIO_AUTH_TOKEN: 'test-auth-token',
  TWILIO_FROM: '+15005550006',
};
const misconfigured: Record<string, string> = { ...good, TWILIO_ACCOUNT_SID: BAD_CREDENTIAL_SID };
beforeAll(async () => {
  await new Promise<void>((r) => twilio.listen(0, '127.0.0.1', r));
  good.TWILIO_BASE_URL = misconfigured.TWILIO_BASE_URL = `http://127.0.0.1:${(twilio.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => twilio.close(() => r())));

describe('the signup link through the Twilio adapter', () => {
  const ctx = useTestApi(good);
  let agent: BrandCaller;
  beforeAll(async () => {
    agent = await brandCaller(ctx.api, ctx.admin, 'Twilio');
  });

  it('sends through Twilio; a number it rejects is 422 naming identifier, and the name is released', async () => {
    const ok = await confirmPin(ctx.api, agent, { name: 'TWILIO-OK', identifier: '+31633333333' });
    expect(ok.status).toBe(202);
    expect(sent.find((m) => m.to === '+31633333333')!.body).toMatch(/\/signup\?token=sgt2\./);

    const rejected = await confirmPin(ctx.api, agent, { name: 'TWILIO-BAD', identifier: REJECTED });
    expect(rejected.status).toBe(422);
    expect(rejected.body.errors).toEqual([
      { location: 'body', field: 'identifier', message: 'The sms provider rejected this destination' },
    ]);
    expect((await ReservationModel.findById('NL:TWILIO-BAD').lean())?.state).not.toBe('held');
    expect((await confirmPin(ctx.api, agent, { name: 'TWILIO-BAD', identifier: '+31644444444' })).status).toBe(202);
  });
});

describe('a Twilio credential it rejects', () => {
  const ctx = useTestApi(misconfigured);

  it('is 500 with the detail masked, and the name is not held', async () => {
    const agent = await brandCaller(ctx.api, ctx.admin, 'Twilio Misconfigured');
    const res = await confirmPin(ctx.api, agent, { name: 'NO-CREDENTIAL', identifier: '+31655555555' });
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe('The messaging provider credential is misconfigured');
    expect(JSON.stringify(res.body)).not.toContain('test-auth-token');
    expect((await ReservationModel.findById('NL:NO-CREDENTIAL').lean())?.state).not.toBe('held');
  });
});
