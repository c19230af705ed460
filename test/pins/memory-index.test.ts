import { PinModel } from '../../src/pins/pin.model';
import { createRedis } from '../../src/lib/engines/redis';
import { indexPin, pinSearchFor } from '../../src/pins/search';
import { createBuiltinEngine } from '../../src/pins/search/builtin-engine';
import { PIN_CHANGES_EPOCH, PIN_CHANGES_STREAM } from '../../src/pins/search/pin-changes';
import { useTestApi } from '../support/harness';
import { eventually } from '../support/eventually';
import { startSecondApi } from '../support/second-api';
import { brandCaller, seedPins } from './pin-fixtures';

const DAY = 86_400_000;
const names = (res: { hits: Array<Record<string, unknown>> }) => res.hits.map((h) => h.name).sort();

/**
 * The built-in engine's in-memory index: kept current across processes by the pin change feed, reloaded when the feed
 * cannot be trusted.
 */
describe('built-in search: the in-memory pin index', () => {
  const ctx = useTestApi();
  let caller: Awaited<ReturnType<typeof brandCaller>>;
  beforeAll(async () => {
    caller = await brandCaller(ctx.api, ctx.admin, 951, 'Memory');
    await seedPins(ctx.api, caller.clientId, [
      { country_code: 'NL', name: 'FIRST', lat: 52.1, lng: 5.1, business: { category: 'Cheese' } },
    ]);
  });
  const redis = () => ctx.api.rt.engines.redis;

  it('answers from memory, loaded once, and sees a pin written after the load without reloading', async () => {
    const engine = createBuiltinEngine({ redis: redis() });
    expect(names(await engine.search({ filter: 'country_code = NL' }))).toEqual(['FIRST']);
    const load = engine.memory!.lastLoad;
    expect(load).toMatchObject({ pins: 1 });
    await seedPins(ctx.api, caller.clientId, [
      { country_code: 'NL', name: 'SECOND', lat: 52.2, lng: 5.2, business: { category: 'Cheese' } },
    ]);
    expect(names(await engine.search({ filter: 'business.category = cheese' }))).toEqual(['FIRST', 'SECOND']);
    expect(engine.memory!.lastLoad).toBe(load); // the same load: the change came from the feed
  });

  it('keeps its value maps and number lists current when a pin changes after they were built', async () => {
    const engine = createBuiltinEngine({ redis: redis() });
    await seedPins(ctx.api, caller.clientId, [
      { country_code: 'NL', name: 'RATED', lat: 52.4, lng: 5.4, business: { category: 'Coffee', rating: 3.5 } },
    ]);
    expect(names(await engine.search({ filter: 'business.rating >= 3 AND business.category = coffee' }))).toEqual([
      'RATED',
    ]);
    expect(names(await engine.search({ filter: 'business.rating 4 TO 5' }))).toEqual([]);
    await PinModel.updateOne({ _id: 'NL:RATED' }, { business: { category: 'Tea', rating: 4.5 } });
    await indexPin((await PinModel.findById('NL:RATED').lean())!, ctx.api.config, redis());
    expect(names(await engine.search({ filter: 'business.rating 4 TO 5' }))).toEqual(['RATED']);
    expect(names(await engine.search({ filter: 'business.rating > 4.5 OR business.rating < 4' }))).toEqual([]);
    expect(names(await engine.search({ filter: 'business.category IN [coffee, tea]' }))).toEqual(['RATED']);
    expect(names(await engine.search({ filter: 'business.category = coffee' }))).toEqual([]);
  });

  it('is what search-pins answers from', async () => {
    const res = await ctx.api.call('POST', '/api/v1/agent/search-pins', {
      token: caller.token,
      headers: caller.headers,
      body: { filter: 'name = FIRST' },
    });
    expect(names(res.body)).toEqual(['FIRST']);
    const engine = pinSearchFor(ctx.api.config, redis()) as ReturnType<typeof createBuiltinEngine>;
    expect(engine.memory?.lastLoad?.pins).toBeGreaterThanOrEqual(1);
  });

  it('finds a pin written through one API process on a second one right after the write returns', async () => {
    const second = await startSecondApi(ctx.api);
    try {
      const searchOnSecond = async (filter: string) => {
        const res = await fetch(`${second.url}/api/v1/agent/search-pins`, {
          method: 'POST',
          headers: { authorization: `Bearer ${caller.token}`, 'x-brand-id': '951', 'content-type': 'application/json' },
          body: JSON.stringify({ filter }),
        });
        expect(res.status).toBe(200);
        return (await res.json()) as { hits: Array<Record<string, unknown>> };
      };
      expect(names(await searchOnSecond('name = ELSEWHERE'))).toEqual([]); // the second process has loaded its index
      await seedPins(ctx.api, caller.clientId, [{ country_code: 'BE', name: 'ELSEWHERE', lat: 50.8, lng: 4.3 }]);
      expect(names(await searchOnSecond('name = ELSEWHERE'))).toEqual(['ELSEWHERE']);
    } finally {
      second.stop();
    }
  });

  it('drops a pin whose subscription passes its end at once, with no write', async () => {
    const engine = createBuiltinEngine({ redis: redis() });
    await seedPins(ctx.api, caller.clientId, [
      {
        country_code: 'DE',
        name: 'SHORT',
        lat: 52.5,
        lng: 13.4,
        subscription: { status: 'active', expires_at: new Date(Date.now() + 3000) },
      },
    ]);
    expect(names(await engine.search({ filter: 'name = SHORT' }))).toEqual(['SHORT']);
    await eventually(
      async () => ((await engine.search({ filter: 'name = SHORT' })).hits.length === 0 ? true : undefined),
      20_000,
      250,
      'the lapsed pin gone',
    );
  });

  it('reloads when the feed was trimmed past its cursor or Redis lost it', async () => {
    const engine = createBuiltinEngine({ redis: redis() });
    await engine.search({});
    const first = engine.memory!.lastLoad;
    // A change the feed never carried (written behind the service's back), then a trimmed feed: only a reload sees it.
    await PinModel.updateOne({ _id: 'NL:FIRST' }, { 'business.category': 'Books' });
    await seedPins(ctx.api, caller.clientId, [{ country_code: 'NL', name: 'THIRD', lat: 52.3, lng: 5.3 }]);
    await redis().xtrim(PIN_CHANGES_STREAM, 'MAXLEN', 0);
    expect(names(await engine.search({ filter: 'business.category = Books' }))).toEqual(['FIRST']);
    const second = engine.memory!.lastLoad;
    expect(second).not.toBe(first);

    await PinModel.updateOne({ _id: 'NL:FIRST' }, { 'business.category': 'Flowers' });
    await redis().del(PIN_CHANGES_EPOCH, PIN_CHANGES_STREAM); // Redis lost its data
    expect(names(await engine.search({ filter: 'business.category = Flowers' }))).toEqual(['FIRST']);
    expect(engine.memory!.lastLoad).not.toBe(second);
  });

  it('answers through MongoDB when Redis cannot be reached, rather than from a possibly stale index', async () => {
    const down = createRedis('redis://127.0.0.1:1', 'nowhere:');
    try {
      const engine = createBuiltinEngine({ redis: down });
      await seedPins(ctx.api, caller.clientId, [
        {
          country_code: 'FR',
          name: 'PARIS',
          lat: 48.85,
          lng: 2.35,
          subscription: { status: 'active', expires_at: new Date(Date.now() + DAY) },
        },
      ]);
      expect(names(await engine.search({ filter: 'country_code = FR' }))).toEqual(['PARIS']);
      expect(engine.memory!.lastLoad).toBeNull();
    } finally {
      down.disconnect();
    }
  });
});
