import { ReservationModel, type RESERVATION_STATES } from '../../src/pins/reservation.model';
import { useTestApi } from '../support/harness';
import { brandCaller, ended, lapsed, pinTestEnv, seedPins } from './pin-fixtures';

const HOUR = 3_600_000;

describe('resolve-pin and preview-pin', () => {
  const ctx = useTestApi(pinTestEnv());
  let caller: Awaited<ReturnType<typeof brandCaller>>;
  beforeAll(async () => {
    caller = await brandCaller(ctx.api, ctx.admin, 911, 'Registry');
    await seedPins(ctx.api, caller.clientId, [
      {
        country_code: 'NL',
        name: 'BAKKERIJ-DE-ZON',
        lat: 52.0907,
        lng: 5.1214,
        brand_id: 911,
        structured_address: { address_road: 'Oudegracht', address_house_number: '12', address_settlement: 'Utrecht' },
        business: { name: 'Bakkerij de Zon', category: 'Bakery', opening_hours: 'Mo-Sa 07:00-18:00' },
      },
      { country_code: 'NL', name: 'BAKKERIJ-DE-ZON-NL', lat: 52, lng: 5 },
      { country_code: 'NL', name: 'BAKKERIJ-DE-ZON1', lat: 52, lng: 5 },
      { country_code: 'NL', name: 'OLD-SHOP', lat: 52, lng: 5, subscription: lapsed },
      { country_code: 'NL', name: 'ENDED-SHOP', lat: 52, lng: 5, subscription: ended },
    ]);
  });
  const call = (method: string, path: string, body?: unknown) =>
    ctx.api.call(method, path, { token: caller.token, headers: caller.headers, body });

  describe('resolve-pin', () => {
    it('returns the delivery payload of a served pin', async () => {
      const res = await call('GET', '/api/v1/agent/resolve-pin?pin_id=NL:BAKKERIJ-DE-ZON');
      expect(res.body).toEqual(expect.objectContaining({ pin_id: 'NL:BAKKERIJ-DE-ZON' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        pin_id: 'NL:BAKKERIJ-DE-ZON',
        country_code: 'NL',
        name: 'BAKKERIJ-DE-ZON',
        gps: { lat: 52.0907, lng: 5.1214 },
        structured_address: { address_road: 'Oudegracht', address_house_number: '12', address_settlement: 'Utrecht' },
        business: { name: 'Bakkerij de Zon', category: 'Bakery', opening_hours: 'Mo-Sa 07:00-18:00' },
        brand_id: 911,
        updated_at: expect.any(String),
      });
    });

    it('answers 404 for an unknown pin, a lapsed subscription and one past its end', async () => {
      for (const id of ['NL:NO-SUCH-PIN', 'BE:BAKKERIJ-DE-ZON', 'NL:OLD-SHOP', 'NL:ENDED-SHOP']) {
        const res = await call('GET', `/api/v1/agent/resolve-pin?pin_id=${encodeURIComponent(id)}`);
        expect(res.status).toBe(404);
        expect(res.body.detail).toBe('Pin not found');
      }
    });

    it('insists on upper case', async () => {
      expect((await call('GET', '/api/v1/agent/resolve-pin?pin_id=nl:bakkerij-de-zon')).status).toBe(422);
      expect((await call('GET', '/api/v1/agent/resolve-pin?pin_id=NL:Bakkerij-de-zon')).status).toBe(422);
    });

    it('needs credentials and a brand the caller acts for', async () => {
      expect((await ctx.api.call('GET', '/api/v1/agent/resolve-pin?pin_id=NL:BAKKERIJ-DE-ZON')).status).toBe(401);
      const noBrand = await ctx.api.call('GET', '/api/v1/agent/resolve-pin?pin_id=NL:BAKKERIJ-DE-ZON', {
        token: caller.token,
      });
      expect(noBrand.status).toBe(422);
      const stranger = await brandCaller(ctx.api, ctx.admin, 912, 'Stranger');
      const foreign = await ctx.api.call('GET', '/api/v1/agent/resolve-pin?pin_id=NL:BAKKERIJ-DE-ZON', {
        token: stranger.token,
        headers: caller.headers,
      });
      expect(foreign.status).toBe(404);
      const search = await ctx.api.call('POST', '/api/v1/agent/search-pins', {
        token: stranger.token,
        headers: caller.headers,
        body: {},
      });
      expect(search.status).toBe(404);
      const preview = await ctx.api.call('POST', '/api/v1/agent/preview-pin', {
        token: stranger.token,
        headers: caller.headers,
        body: { name: 'X', country_code: 'NL' },
      });
      expect(preview.status).toBe(404);
    });
  });

  describe('preview-pin', () => {
    const preview = (body: Record<string, unknown>) => call('POST', '/api/v1/agent/preview-pin', body);

    it('says a free name is available, without suggestions, in any case', async () => {
      expect((await preview({ name: 'brand-new-name', country_code: 'NL' })).body).toEqual({
        is_available: true,
        suggestions: [],
      });
      // The same name is free in another country.
      expect((await preview({ name: 'BAKKERIJ-DE-ZON', country_code: 'BE' })).body).toEqual({
        is_available: true,
        suggestions: [],
      });
    });

    it('offers free alternatives for a taken name, never the name itself nor another taken one', async () => {
      const res = await preview({ name: 'bakkerij-de-zon', country_code: 'NL' });
      expect(res.status).toBe(200);
      expect(res.body.is_available).toBe(false);
      expect(res.body.suggestions).toHaveLength(5);
      expect(res.body.suggestions).not.toContain('BAKKERIJ-DE-ZON');
      expect(res.body.suggestions).not.toContain('BAKKERIJ-DE-ZON-NL');
      expect(res.body.suggestions).not.toContain('BAKKERIJ-DE-ZON1');
      expect(new Set(res.body.suggestions).size).toBe(5);
      for (const s of res.body.suggestions) {
        expect(s).toMatch(/^[A-Z0-9][A-Z0-9_-]{0,63}$/);
        expect((await preview({ name: s, country_code: 'NL' })).body.is_available).toBe(true);
      }
    });

    it('gives up to count alternatives (at most 20)', async () => {
      expect((await preview({ name: 'BAKKERIJ-DE-ZON', country_code: 'NL', count: 2 })).body.suggestions).toHaveLength(
        2,
      );
      expect((await preview({ name: 'BAKKERIJ-DE-ZON', country_code: 'NL', count: 20 })).body.suggestions).toHaveLength(
        20,
      );
      expect((await preview({ name: 'BAKKERIJ-DE-ZON', country_code: 'NL', count: 21 })).status).toBe(422);
    });

    it('counts a name held by a live reservation as taken, and an expired or completed hold as free', async () => {
      const hold = (name: string, state: (typeof RESERVATION_STATES)[number], expiresIn: number) =>
        ReservationModel.create({
          _id: `NL:${name}`,
          reservation_id: `r-${name}`,
          country_code: 'NL',
          name,
          client_id: caller.clientId,
          brand_id: 911,
          channel: 'sms',
          identifier: '+31612345678',
          state,
          expires_at: new Date(Date.now() + expiresIn),
        });
      await hold('HELD-NAME', 'held', 24 * HOUR);
      await hold('STALE-HOLD', 'held', -HOUR);
      await hold('EXPIRED-HOLD', 'expired', 24 * HOUR);
      const held = await preview({ name: 'held-name', country_code: 'NL' });
      expect(held.body.is_available).toBe(false);
      expect(held.body.suggestions).not.toContain('HELD-NAME');
      expect((await preview({ name: 'STALE-HOLD', country_code: 'NL' })).body.is_available).toBe(true);
      expect((await preview({ name: 'EXPIRED-HOLD', country_code: 'NL' })).body.is_available).toBe(true);
      // A held alternative is not offered.
      await hold('BAKKERIJ-DE-ZON-HQ', 'held', HOUR);
      const res = await preview({ name: 'BAKKERIJ-DE-ZON', country_code: 'NL', count: 20 });
      expect(res.body.suggestions).not.toContain('BAKKERIJ-DE-ZON-HQ');
    });

    it('refuses a malformed name or country', async () => {
      expect((await preview({ name: 'no spaces', country_code: 'NL' })).status).toBe(422);
      expect((await preview({ name: 'OK', country_code: 'nl' })).status).toBe(422);
    });
  });
});
