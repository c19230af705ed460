import YAML from 'yaml';
import { createClient, indexLock, startTestApi, type TestApi } from '../../support/harness';
import { seedResources } from '../../support/resources';

describe('GET /idap/{resource_type}/search', () => {
  let api: TestApi;
  let admin: string;
  let a: { client_id: string; triple: string };
  let b: { client_id: string; triple: string };
  const search = (token: string, type: string, params: Record<string, string>) =>
    api.call('GET', `/api/v1/idap/${type}/search?${new URLSearchParams(params)}`, { token });
  const names = (body: { items: { data: { name: string } }[] }) => body.items.map((i) => i.data.name);
  const business = (key: string, name: string, category: string, address: string, flags?: string[]) => ({
    type: 'businesses' as const,
    naturalKey: key,
    data: { name, category, address },
    flags,
  });

  beforeAll(async () => {
    api = await startTestApi();
    admin = await api.login();
    a = await createClient(api, admin, 'Search A');
    b = await createClient(api, admin, 'Search B');
    await seedResources(
      a.client_id,
      [
        business('p1', 'Cafe Royal', 'Cafe', '1 High Street, London'),
        business('p2', 'The Royal Cafe and Bistro', 'Restaurant', '5 Market Square, Leeds'),
        business('p3', 'Royal Bakery', 'Bakery', '9 Cafe Lane, York'),
        business('p4', 'Café de Flore', 'Cafe', '172 Boulevard Saint-Germain, Paris'),
        business('p5', 'Cafeteria Central', 'Canteen', '2 Station Road, Leeds'),
        business('p6', 'Grand Hotel', 'Hotel', '3 Royal Crescent, Bath'),
        business('p7', 'Royal Cafe Closed', 'Cafe', '8 Old Road, Hull', ['rejected']),
        business('p8', 'Straße Cafe', 'Cafe', 'Hauptstraße 1, Berlin', ['qualified']),
      ],
      indexLock(api),
    );
    await seedResources(
      a.client_id,
      [
        { type: 'contacts', naturalKey: 'c1', data: { name: 'Jan Jansen', email: 'jan@zon.example', title: 'Owner' } },
        {
          type: 'contacts',
          naturalKey: 'c2',
          data: { name: 'Piet Owner', email: 'piet@mill.example', title: 'Baker' },
        },
        { type: 'phones', naturalKey: '+31301234567', data: { number: '+31 30 123 4567' } },
        {
          type: 'company_registry',
          naturalKey: 'NL:30123456',
          data: { name: 'Bakkerij de Zon B.V.', registration_number: '30123456' },
        },
      ],
      indexLock(api),
    );
    await seedResources(
      b.client_id,
      [business('q1', 'Cafe Royal Elsewhere', 'Cafe', '1 Other Street')],
      indexLock(api),
    );
  });
  afterAll(() => api.stop());

  it('ranks by relevance: exact name first, both terms before one, name before address, ties stable', async () => {
    const res = await search(a.triple, 'businesses', { q: 'cafe royal ' });
    expect(res.body.detail).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ resource_type: 'businesses', has_more: false, next_cursor: null });
    // p1: the whole name is the phrase (×2); p2: both terms in the (long) name (×1.25); p3: royal in the
    // name, cafe in the address; then one-term matches: cafe in a short name and the category, in a longer
    // name, then royal in an address only. The rejected p7 is left out.
    expect(names(res.body)).toEqual([
      'Cafe Royal',
      'The Royal Cafe and Bistro',
      'Royal Bakery',
      'Straße Cafe',
      'Café de Flore',
      'Grand Hotel',
    ]);
    expect(res.body.count).toBe(6);
    const scores = res.body.items.map((i: { score: number }) => i.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
  });

  it('folds accents and transliterates, in the query and in the data', async () => {
    expect(names((await search(a.triple, 'businesses', { q: 'cafe de flore ' })).body)[0]).toBe('Café de Flore');
    expect(names((await search(a.triple, 'businesses', { q: 'CAFÉ DE FLORE ' })).body)[0]).toBe('Café de Flore');
    expect(names((await search(a.triple, 'businesses', { q: 'strasse ' })).body)).toEqual(['Straße Cafe']);
  });

  it('matches the last term as a prefix while it is being typed; exact words rank before completions', async () => {
    expect(names((await search(a.triple, 'businesses', { q: 'cafet' })).body)).toEqual(['Cafeteria Central']);
    const typed = names((await search(a.triple, 'businesses', { q: 'caf' })).body);
    expect(typed).toContain('Cafeteria Central');
    expect(typed).toContain('Cafe Royal');
    // A finished word is not a prefix: "cafe " does not find the cafeteria, "cafe" does (after the cafes).
    expect(names((await search(a.triple, 'businesses', { q: 'cafe ' })).body)).not.toContain('Cafeteria Central');
    // Still typing "cafe": the cafeteria is a completion, ranked after every exact "cafe" in a name.
    const typing = names((await search(a.triple, 'businesses', { q: 'cafe' })).body);
    for (const exact of ['Cafe Royal', 'Straße Cafe', 'Café de Flore', 'The Royal Cafe and Bistro']) {
      expect(typing.indexOf(exact)).toBeLessThan(typing.indexOf('Cafeteria Central'));
    }
  });

  it('leaves out rejected resources unless flags names them; flags requires, !flag excludes', async () => {
    expect(names((await search(a.triple, 'businesses', { q: 'royal', flags: 'rejected' })).body)).toEqual([
      'Royal Cafe Closed',
    ]);
    expect(names((await search(a.triple, 'businesses', { q: 'cafe', flags: 'qualified' })).body)).toEqual([
      'Straße Cafe',
    ]);
    const notNew = names((await search(a.triple, 'businesses', { q: 'cafe', flags: '!new' })).body);
    expect(notNew).toEqual(['Straße Cafe']);
  });

  it('searches the searchable fields of the other types', async () => {
    // Every term counts: Jan's address shares "example", but the whole address ranks Piet first.
    const byEmail = await search(a.triple, 'contacts', { q: 'piet@mill.example' });
    expect(names(byEmail.body)).toEqual(['Piet Owner', 'Jan Jansen']);
    // "owner" is a title of one and a name of the other: the name weighs more.
    expect(names((await search(a.triple, 'contacts', { q: 'owner ' })).body)).toEqual(['Piet Owner', 'Jan Jansen']);
    const phone = await search(a.triple, 'phones', { q: '31301234567' });
    expect(phone.body.items.map((i: { data: { number: string } }) => i.data.number)).toEqual(['+31 30 123 4567']);
    expect((await search(a.triple, 'phones', { q: '123 4567' })).body.count).toBe(1);
    expect((await search(a.triple, 'company_registry', { q: '30123456' })).body.count).toBe(1);
  });

  it('follows changes to the data: a renamed resource is found by its new name only', async () => {
    await seedResources(
      a.client_id,
      [business('p6', 'Grand Palace Hotel', 'Hotel', '3 Royal Crescent, Bath')],
      indexLock(api),
    );
    expect(names((await search(a.triple, 'businesses', { q: 'palace ' })).body)).toEqual(['Grand Palace Hotel']);
    await seedResources(
      a.client_id,
      [business('p6', 'Grand Hotel', 'Hotel', '3 Royal Crescent, Bath')],
      indexLock(api),
    );
    expect((await search(a.triple, 'businesses', { q: 'palace ' })).body.count).toBe(0);
  });

  it('applies limit and fields; validates q, limit and format; media is 400', async () => {
    const limited = await search(a.triple, 'businesses', { q: 'cafe royal', limit: '2', fields: 'name' });
    expect(limited.body.items.map((i: { data: unknown }) => i.data)).toEqual([
      { name: 'Cafe Royal' },
      { name: 'The Royal Cafe and Bistro' },
    ]);
    const invalid: Record<string, string>[] = [
      { q: '' },
      { q: 'x'.repeat(501) },
      { q: 'cafe', limit: '0' },
      { q: 'cafe', limit: '101' },
      { q: 'cafe', format: 'xml' },
    ];
    for (const params of invalid) {
      expect((await search(a.triple, 'businesses', params)).status).toBe(422);
    }
    expect((await search(a.triple, 'businesses', { q: 'x'.repeat(500) })).status).toBe(200);
    expect((await search(a.triple, 'planets', { q: 'cafe' })).status).toBe(422);
    const media = await search(a.triple, 'media', { q: 'cafe' });
    expect(media.status).toBe(400);
    expect(media.body.detail).toMatch(/media/);
  });

  it('answers the same items as YAML or as a Markdown table', async () => {
    const json = await search(a.triple, 'businesses', { q: 'royal bakery' });
    const yaml = await search(a.triple, 'businesses', { q: 'royal bakery', format: 'yaml' });
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(YAML.parse(yaml.body)).toEqual(json.body);
    const md = await search(a.triple, 'businesses', { q: 'royal bakery', format: 'md' });
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    const lines = (md.body as string).trim().split('\n');
    expect(lines[2]).toBe('| # | name | category | address | flags | score | idap_ref |');
    expect(lines[4]).toMatch(
      /^\| 1 \| Royal Bakery \| Bakery \| 9 Cafe Lane, York \| new \| [\d.]+ \| idap:\/\/businesses\/[0-9a-f-]{36} \|$/,
    );
    expect(lines).toHaveLength(4 + json.body.count);
  });

  it('searches only the caller’s tenant', async () => {
    expect(names((await search(b.triple, 'businesses', { q: 'cafe royal' })).body)).toEqual(['Cafe Royal Elsewhere']);
    expect(names((await search(a.triple, 'businesses', { q: 'elsewhere' })).body)).toEqual([]);
    expect((await search(admin, 'businesses', { q: 'cafe' })).status).toBe(422);
    const chosen = await api.call('GET', '/api/v1/idap/businesses/search?q=elsewhere', {
      token: admin,
      headers: { 'X-Selected-Client-Id': b.client_id },
    });
    expect(names(chosen.body)).toEqual(['Cafe Royal Elsewhere']);
  });
});
