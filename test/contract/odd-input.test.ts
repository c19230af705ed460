import { createClient, useTestApi } from '../support/harness';

const doc = (attrs: Record<string, unknown>) => ({
  type: 'doc',
  content: [{ type: 'paragraph', attrs, content: [{ type: 'text', text: 'x' }] }],
});

describe('odd input gets a clear 4xx naming the field, never a 500', () => {
  const ctx = useTestApi();
  let triple: string;
  beforeAll(async () => {
    triple = (await createClient(ctx.api, ctx.admin, 'Odd')).triple;
  });
  const post = (path: string, body: unknown) =>
    ctx.api.call('POST', `/api/v1/dashboard/content/${path}`, { token: triple, body });

  it.each([
    ['a NUL byte', { 'a\u0000b': 1 }, 'NUL'],
    ['a leading $', { $where: 'sleep(1000)' }, '"$"'],
    ['a dot', { 'a.b': 1 }, '"."'],
    ['a nested bad key', { ok: { deeper: { 'x\u0000': 1 } } }, 'NUL'],
  ])('page block data with a key containing %s is 400', async (_name, data, says) => {
    const res = await post('pages', {
      slug: `odd-${Math.random().toString(36).slice(2, 8)}`,
      title: 'Odd',
      blocks: [{ type: 'hero', data }],
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(says);
    expect(res.body.errors[0].field).toMatch(/^blocks\[0\]\.data/);
  });

  it('a conditional request to an operation that declares no validators gets its 200 and body, not a 304', async () => {
    const path = '/api/v1/dashboard/client/jobs';
    const first = await ctx.api.call('GET', path, { token: triple });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBeNull();
    for (const tag of ['*', 'W/"x", *']) {
      const again = await ctx.api.call('GET', path, { token: triple, headers: { 'If-None-Match': tag } });
      expect({ tag, status: again.status, body: again.body }).toEqual({ tag, status: 200, body: first.body });
    }
  });

  it('rich-text attrs with a NUL or $ key are 400 naming the node', async () => {
    for (const attrs of [{ 'k\u0000': 1 }, { $set: 1 }]) {
      const res = await post('posts', { slug: 'attrs', title: 'Attrs', body: doc(attrs) });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe('body.content[0].attrs');
    }
  });

  it('an array directly inside an array (unstorable locally) is 400 naming its path, not 500', async () => {
    const marks = [{ type: 'link', attrs: { cells: { rows: [[-1, 'x'], ''] } } }];
    const nested = { slug: 'nested-arrays', title: 'Nested' };
    for (const [kind, body, field] of [
      [
        'posts',
        { ...nested, body: { type: 'doc', content: [{ type: 'text', text: 'x', marks }] } },
        'body.content[0].marks[0].attrs.cells.rows[0]',
      ],
      ['pages', { ...nested, blocks: [{ type: 'table', data: { rows: [['a', 'b']] } }] }, 'blocks[0].data.rows[0]'],
    ] as const) {
      const res = await post(kind, body);
      expect({ status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ status: 400, field });
    }
    // One level of arrays is stored as given.
    const flat = await post('pages', {
      slug: 'flat-arrays',
      title: 'Flat',
      blocks: [{ type: 'table', data: { rows: [{ cells: ['a', 'b'] }] } }],
    });
    expect(flat.status).toBe(201);
  });

  it('block data nested beyond the limit is 400', async () => {
    let data: Record<string, unknown> = {};
    const root = data;
    for (let i = 0; i < 40; i++) data = (data.next = {}) as Record<string, unknown>;
    const res = await post('pages', { slug: 'deep', title: 'Deep', blocks: [{ type: 'text', data: root }] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/nested deeper than/);
  });

  it('an integer beyond its maximum is 422, not echoed back as a float', async () => {
    const res = await ctx.api.call('GET', '/api/v1/dashboard/client/jobs?page=3027127409868297570799780315835400192', {
      token: triple,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ location: 'query', field: 'page' });
  });

  it("a missing or non-JSON body is the operation's validation status (422, 400 for authoring), not 415", async () => {
    const noBody = await ctx.api.call('POST', '/api/v1/brands', { token: triple });
    expect(noBody.status).toBe(422);
    expect(noBody.body.errors[0].field).toBe('Content-Type');
    const text = await ctx.api.call('POST', '/api/v1/brands', {
      token: triple,
      rawBody: 'brand_name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(422);
    const authoring = await ctx.api.call('POST', '/api/v1/dashboard/content/tags', {
      token: triple,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(authoring.status).toBe(400);
  });
});
