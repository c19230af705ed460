import mongoose from 'mongoose';
import { createClient, indexLock, startTestApi, type TestApi } from '../../support/harness';
import { idapRef, resourceId } from '../../../src/idap/resources/resource.model';
import { seedResources } from '../../support/resources';

describe('POST /idap/batch', () => {
  let api: TestApi;
  let admin: string;
  let a: { client_id: string; triple: string };
  let b: { client_id: string; triple: string };
  const ref = (clientId: string, type: Parameters<typeof resourceId>[1], key: string) =>
    idapRef(type, resourceId(clientId, type, key));
  const batch = (token: string, body: unknown, headers?: Record<string, string>) =>
    api.call('POST', '/api/v1/idap/batch', { token, body, headers });

  beforeAll(async () => {
    api = await startTestApi();
    admin = await api.login();
    a = await createClient(api, admin, 'Batch A');
    b = await createClient(api, admin, 'Batch B');
    const contact = ref(a.client_id, 'contacts', 'jan@zon.example');
    const email = ref(a.client_id, 'emails', 'jan@zon.example');
    const phone = ref(a.client_id, 'phones', '+31301234567');
    await seedResources(
      a.client_id,
      [
        {
          type: 'contacts',
          naturalKey: 'jan@zon.example',
          data: { name: 'Jan de Zon', email: 'jan@zon.example', title: 'Owner' },
          related: [email],
        },
        { type: 'emails', naturalKey: 'jan@zon.example', data: { address: 'jan@zon.example' } },
        { type: 'phones', naturalKey: '+31301234567', data: { number: '+31 30 123 4567' } },
        { type: 'domains', naturalKey: 'zon.example', data: { domain: 'zon.example', title: 'Bakkerij de Zon' } },
        {
          type: 'businesses',
          naturalKey: 'place-zon',
          sourceJobId: 'job-1',
          data: {
            name: 'Bakkerij de Zon',
            address: 'Oudegracht 12, Utrecht',
            category: 'Bakery',
            rating: 4.6,
            location: { lat: 52.09, lng: 5.12 },
          },
          related: [
            contact,
            email,
            phone,
            ref(a.client_id, 'domains', 'zon.example'),
            'idap://media/1c5e9a3f-7b2d-4e6a-8f0c-4d2b6e8a0c51',
          ],
        },
      ],
      indexLock(api),
    );
    await seedResources(
      b.client_id,
      [{ type: 'businesses', naturalKey: 'place-b', data: { name: 'Other tenant bakery' } }],
      indexLock(api),
    );
  });
  afterAll(() => api.stop());

  it('answers found refs with the resource fields and failed ones in errors, with the interface texts', async () => {
    const business = ref(a.client_id, 'businesses', 'place-zon');
    const absent = ref(a.client_id, 'businesses', 'no-such-place');
    const foreign = ref(b.client_id, 'businesses', 'place-b');
    const media = 'idap://media/1c5e9a3f-7b2d-4e6a-8f0c-4d2b6e8a0c51';
    const res = await batch(a.triple, {
      refs: [business, absent, foreign, media, 'businesses/42', 'idap://planets/1c5e9a3f-7b2d-4e6a-8f0c-4d2b6e8a0c51'],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.results)).toEqual([business]);
    const item = res.body.results[business];
    expect(item).toMatchObject({
      idap_ref: business,
      resource_type: 'businesses',
      resource_id: business.split('/').pop(),
      tenant_id: a.client_id,
      flags: ['new'],
      data: { name: 'Bakkerij de Zon', category: 'Bakery', rating: 4.6 },
    });
    expect(Date.parse(item.created_at)).not.toBeNaN();
    expect(Date.parse(item.modified_at)).not.toBeNaN();
    expect(item.related).toBeUndefined();
    expect(res.body.errors[absent]).toBe('resource_not_found');
    expect(res.body.errors[foreign]).toBe('resource_not_found');
    expect(res.body.errors[media]).toMatch(/GET \/api\/v1\/idap\/media\/\{media_id\}/);
    expect(res.body.errors['businesses/42']).toMatch(/^Invalid IDAP ref/);
    expect(res.body.errors['idap://planets/1c5e9a3f-7b2d-4e6a-8f0c-4d2b6e8a0c51']).toMatch(/^Invalid IDAP ref/);
  });

  it('narrows data to `fields`, dotted names included', async () => {
    const business = ref(a.client_id, 'businesses', 'place-zon');
    const res = await batch(a.triple, { refs: [business], fields: 'name, location.lat,nope' });
    expect(res.body.results[business].data).toEqual({ name: 'Bakkerij de Zon', location: { lat: 52.09 } });
  });

  it('adds related resources of the included types under `related`', async () => {
    const business = ref(a.client_id, 'businesses', 'place-zon');
    const contact = ref(a.client_id, 'contacts', 'jan@zon.example');
    const res = await batch(a.triple, { refs: [business, contact], include: 'contacts,emails,phones' });
    expect(res.status).toBe(200);
    const related = res.body.results[business].related;
    expect(Object.keys(related).sort()).toEqual(['contacts', 'emails', 'phones']);
    expect(related.contacts.map((r: { data: { name: string } }) => r.data.name)).toEqual(['Jan de Zon']);
    expect(related.emails.map((r: { data: { address: string } }) => r.data.address)).toEqual(['jan@zon.example']);
    expect(related.phones.map((r: { data: { number: string } }) => r.data.number)).toEqual(['+31 30 123 4567']);
    expect(res.body.results[contact].related).toEqual({
      contacts: [],
      emails: [expect.objectContaining({ idap_ref: ref(a.client_id, 'emails', 'jan@zon.example') })],
      phones: [],
    });
    const bad = await batch(a.triple, { refs: [business], include: 'contacts,planets' });
    expect(bad.status).toBe(422);
  });

  it('takes at most 100 refs (422 above) and fetches 100 refs of four types with one query per type', async () => {
    const types = ['businesses', 'domains', 'emails', 'phones'] as const;
    const items = types.flatMap((type) =>
      Array.from({ length: 25 }, (_, i) => ({ type, naturalKey: `bulk-${type}-${i}`, data: { name: `${type} ${i}` } })),
    );
    await seedResources(a.client_id, items, indexLock(api));
    const refs = items.map((i) => ref(a.client_id, i.type, i.naturalKey));
    const tooMany = await batch(a.triple, { refs: [...refs, ref(a.client_id, 'businesses', 'place-zon')] });
    expect(tooMany.status).toBe(422);

    const queries: string[] = [];
    mongoose.set('debug', (collection: string, method: string) => void queries.push(`${collection}.${method}`));
    let res;
    try {
      res = await batch(a.triple, { refs });
    } finally {
      mongoose.set('debug', false);
    }
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.results)).toHaveLength(100);
    expect(res.body.errors).toEqual({});
    expect(queries.filter((q) => q.startsWith('idap_resources.'))).toEqual([
      'idap_resources.find',
      'idap_resources.find',
      'idap_resources.find',
      'idap_resources.find',
    ]);
  });

  it('acts for the caller’s tenant: a super_admin must choose one, 401 without credentials', async () => {
    const business = ref(a.client_id, 'businesses', 'place-zon');
    expect((await batch(admin, { refs: [business] })).status).toBe(422);
    const chosen = await batch(admin, { refs: [business] }, { 'X-Selected-Client-Id': a.client_id });
    expect(Object.keys(chosen.body.results)).toEqual([business]);
    const other = await batch(admin, { refs: [business] }, { 'X-Selected-Client-Id': b.client_id });
    expect(other.body.errors[business]).toBe('resource_not_found');
    expect((await api.call('POST', '/api/v1/idap/batch', { body: { refs: [business] } })).status).toBe(401);
  });
});
