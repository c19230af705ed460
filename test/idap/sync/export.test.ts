import { createClient, indexLock, startTestApi, type TestApi } from '../../support/harness';
import { seedResources, type SeedResource } from '../../support/resources';
import { SYNC_ENV, followToEnd, settled } from './sync-helpers';

/** More than the largest page the list answers (limit ≤ 100): a download is every page of the listing. */
const SEEDED = 260;

describe('GET /idap/{resource_type} with format csv or jsonl: the whole listing as a download', () => {
  let api: TestApi;
  let a: { client_id: string; triple: string };
  let b: { client_id: string; triple: string };
  const business = (n: number): SeedResource => ({
    type: 'businesses',
    naturalKey: `place-${n}`,
    data: {
      name: n === 7 ? '=HYPERLINK("http://evil.example")' : `Bakery ${n}`,
      address: `Oudegracht ${n}, Utrecht`,
      rating: 4.5,
      photos: [],
    },
    flags: n % 2 === 0 ? ['new', 'qualified'] : n % 4 === 1 ? ['rejected'] : undefined,
  });
  const download = (token: string, params: Record<string, string>) =>
    fetch(`${api.url}/api/v1/idap/businesses?${new URLSearchParams(params)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
  /** The body as it arrives: its text and how many reads it took. */
  async function read(res: Response) {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let reads = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, reads };
      reads++;
      text += decoder.decode(value, { stream: true });
    }
  }
  const records = (text: string) => text.split('\r\n').filter(Boolean);

  beforeAll(async () => {
    api = await startTestApi(SYNC_ENV);
    const admin = await api.login();
    a = await createClient(api, admin, 'Export A');
    b = await createClient(api, admin, 'Export B');
    for (let n = 0; n < SEEDED; n += 100)
      await seedResources(
        a.client_id,
        Array.from({ length: Math.min(100, SEEDED - n) }, (_, i) => business(n + i)),
        indexLock(api),
      );
    await seedResources(a.client_id, [{ type: 'contacts', naturalKey: 'c1', data: { name: 'Jan' } }], indexLock(api));
    await seedResources(b.client_id, [business(0)], indexLock(api));
    await settled();
  });
  afterAll(() => api.stop());

  it('answers CSV with a header row and one row per resource of the listing, streamed in chunks', async () => {
    const res = await download(a.triple, { format: 'csv', limit: '5' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="businesses.csv"');
    // Written as it is read: no length known in advance.
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const { text, reads } = await read(res);
    expect(reads).toBeGreaterThan(1);
    const rows = records(text);
    expect(rows[0]).toBe(
      'idap_ref,name,category,address,country_code,region_code,phone,website,rating,reviews_count,flags,created_at,modified_at',
    );
    // Every business of A, `limit` ignored, in the listing's order; no contact, nothing of B.
    const listed = await followToEnd(api, a.triple, 'businesses', { limit: '100' });
    expect(listed.items).toHaveLength(SEEDED);
    expect(rows.slice(1).map((r) => r.split(',')[0])).toEqual(listed.items.map((i) => i.idap_ref));
    const third = rows.find((r) => r.includes('Bakery 3,'))!;
    expect(third).toContain(',"Oudegracht 3, Utrecht",,,,,4.5,,new,');
    // A cell a spreadsheet would run as a formula is made inert.
    expect(text).toContain(`,"'=HYPERLINK(""http://evil.example"")",`);
  });

  it('applies the same flags as the listing and narrows the columns to `fields`', async () => {
    const res = await download(a.triple, { format: 'csv', flags: 'qualified', fields: 'name,rating' });
    const rows = records((await read(res)).text);
    expect(rows[0]).toBe('idap_ref,name,rating,flags,created_at,modified_at');
    const qualified = await followToEnd(api, a.triple, 'businesses', { limit: '100', flags: 'qualified' });
    expect(qualified.items.length).toBeGreaterThan(100);
    expect(rows).toHaveLength(qualified.items.length + 1);
    expect(rows.slice(1).every((r) => r.includes(',new; qualified,'))).toBe(true);

    const excluded = await download(a.triple, { format: 'csv', flags: '!rejected,!qualified' });
    expect(records((await read(excluded)).text)).toHaveLength(SEEDED / 4 + 1);
  });

  it('answers JSON Lines: each resource as the JSON page has it', async () => {
    const res = await download(a.triple, { format: 'jsonl', flags: '!rejected' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="businesses.jsonl"');
    const lines = (await read(res)).text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const listed = await followToEnd(api, a.triple, 'businesses', { limit: '100', flags: '!rejected' });
    expect(listed.items.length).toBeGreaterThan(100);
    expect(lines).toEqual(listed.items);
  });

  it('starts where a cursor points, and refuses a cursor of another listing before writing anything', async () => {
    const first = await api.call('GET', '/api/v1/idap/businesses?limit=100', { token: a.triple });
    const rest = await download(a.triple, { format: 'jsonl', cursor: first.body.next_cursor });
    expect((await read(rest)).text.trimEnd().split('\n')).toHaveLength(SEEDED - 100);
    const contacts = await api.call('GET', '/api/v1/idap/contacts', { token: a.triple });
    const wrong = await download(a.triple, { format: 'csv', cursor: contacts.body.next_cursor });
    expect(wrong.status).toBe(422);
    expect(wrong.headers.get('content-type')).toMatch(/json/);
  });
});
