import { createClient, type TestApi } from '../support/harness';

export interface Party {
  token: string;
  userId?: string;
}

/** A dashboard user of a client with a password, logged in. */
export async function userOf(
  api: TestApi,
  admin: string,
  clientId: string | null,
  email: string,
  role = 'client_user',
): Promise<Party> {
  const password = 'party-password-123';
  const res = await api.call('POST', '/api/v1/dashboard/users', {
    token: admin,
    body: { email, role, client_id: clientId, password },
  });
  if (res.status !== 201) throw new Error(`create user: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: await api.login(email, password), userId: res.body.user_id };
}

export async function addMember(api: TestApi, admin: string, userId: string, brandId: number, role: string) {
  const res = await api.call('POST', `/api/v1/dashboard/users/${userId}/brands`, {
    token: admin,
    body: { brand_id: brandId, role },
  });
  if (res.status !== 201) throw new Error(`add member: ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * The cast of the role matrix: a brand of client A created by `owner`, an admin and a member of it,
 * another user of client A outside it, a user of client B, the super_admin and both clients' triples.
 */
export async function brandCast(api: TestApi, admin: string, tag: string) {
  const a = await createClient(api, admin, `Cast A ${tag}`);
  const b = await createClient(api, admin, `Cast B ${tag}`);
  const owner = await userOf(api, admin, a.client_id, `owner-${tag}@a.test`);
  const brand = await api.call('POST', '/api/v1/brands', {
    token: owner.token,
    body: { brand_name: `Brand ${tag}`, slug: `brand-${tag}` },
  });
  if (brand.status !== 201) throw new Error(`create brand: ${brand.status} ${JSON.stringify(brand.body)}`);
  const brandId = brand.body.brand_id as number;
  const brandAdmin = await userOf(api, admin, a.client_id, `admin-${tag}@a.test`, 'brand_admin');
  const member = await userOf(api, admin, a.client_id, `member-${tag}@a.test`);
  const outsider = await userOf(api, admin, a.client_id, `outsider-${tag}@a.test`);
  const otherClient = await userOf(api, admin, b.client_id, `other-${tag}@b.test`, 'brand_admin');
  await addMember(api, admin, brandAdmin.userId!, brandId, 'admin');
  await addMember(api, admin, member.userId!, brandId, 'member');
  return {
    brandId,
    clientA: a,
    clientB: b,
    parties: {
      owner,
      admin: brandAdmin,
      member,
      outsider,
      otherClient,
      super_admin: { token: admin },
      triple: { token: a.triple },
      otherTriple: { token: b.triple },
    } as Record<string, Party>,
  };
}
