/**
 * A brand's members and their roles: listed, added, changed and removed by the brand's admins. Only an owner-level
 * caller hands out or takes away the owner role, and a brand always keeps one owner.
 */
import type { JsonAnswer, JsonBody, Schemas } from '../lib/contract-types';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import type { Caller } from '../lib/tenancy';
import { userDirectory } from '../users/user-directory';
import { brandAccess } from './brand-access';
import { BrandMemberModel, BrandModel, memberId, type BrandDoc, type BrandRole, type MemberDoc } from './brand.model';
import { toMember } from './brand.views';
import { inBrandTurn, type BrandWriteDeps } from './brand-turns';

/**
 * Who may hand out or take away the owner role: an owner of the brand, a super_admin and the client's triple
 * (brandAccess has them act as admin without a membership behind it); not a brand admin, nor an agent.
 */
function assertMayGrant(caller: Caller, callerRole: BrandRole, role: BrandRole) {
  const ownerLevel = callerRole === 'owner' || caller.role === 'super_admin' || caller.kind === 'client';
  if (role === 'owner' && !ownerLevel)
    throw AppError.forbidden('Only an owner of the brand grants or changes the owner role');
}

async function memberOf(brand: BrandDoc, userId: string): Promise<MemberDoc> {
  const member = await BrandMemberModel.findOne({
    _id: memberId(brand._id, userId),
    client_id: brand.client_id,
  }).lean<MemberDoc>();
  if (!member) throw AppError.notFound('Member not found');
  return member;
}

const emailOf = async (userId: string) => (await userDirectory.emails([userId])).get(userId) ?? '';

async function assertAnotherOwner(brand: BrandDoc, userId: string) {
  const others = await BrandMemberModel.countDocuments({
    client_id: brand.client_id,
    brand_id: brand._id,
    role: 'owner',
    user_id: { $ne: userId },
  });
  if (!others) throw AppError.conflict("The brand's last owner cannot be demoted or removed");
}

export async function listMembers(
  caller: Caller,
  brandId: number,
  page: Page,
): Promise<JsonAnswer<'listBrandMembers', 200>> {
  const { brand } = await brandAccess(caller, brandId, 'member');
  const filter = { client_id: brand.client_id, brand_id: brandId };
  const { docs, total } = await findPage<MemberDoc>(
    BrandMemberModel,
    { filter, sort: { created_at: 1, _id: 1 } },
    page,
  );
  const email = await userDirectory.emails(docs.map((d) => d.user_id));
  return pageEnvelope(
    'members',
    docs.map((d) => toMember(d, email.get(d.user_id) ?? '')),
    total,
    page,
  );
}

/** Super-admin: makes a user of the brand's client a member at once (409 when already one). */
export async function addMember(userId: string, brandId: number, role: BrandRole): Promise<Schemas['Member']> {
  const user = await userDirectory.find(userId);
  if (!user) throw AppError.notFound('User not found');
  const brand = await BrandModel.findOne({ _id: brandId }).setOptions({ allTenants: true }).lean<BrandDoc>();
  if (!brand) throw AppError.notFound('Brand not found');
  if (user.client_id !== brand.client_id) {
    throw AppError.invalid("The user does not belong to the brand's client", [
      { location: 'body', field: 'brand_id', message: 'brand of another client' },
    ]);
  }
  try {
    const doc = await BrandMemberModel.create({
      _id: memberId(brandId, userId),
      client_id: brand.client_id,
      brand_id: brandId,
      user_id: userId,
      role,
    });
    return toMember(doc.toObject() as MemberDoc, user.email);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw AppError.conflict('The user is already a member of this brand');
    throw err;
  }
}

/**
 * A brand's owner or admin (or a super_admin, or the client's triple) adds a user of the brand's client, named
 * by e-mail or id. No such user and a user of another client read alike (422), so nobody learns who exists
 * elsewhere; only an owner-level caller makes an owner.
 */
export async function addBrandMember(
  caller: Caller,
  brandId: number,
  input: JsonBody<'addBrandMember'>,
): Promise<Schemas['Member']> {
  const { brand, role: callerRole } = await brandAccess(caller, brandId, 'admin');
  if ((input.email === undefined) === (input.user_id === undefined)) {
    throw AppError.invalid('Name the user by email or by user_id (exactly one)', [
      { location: 'body', field: input.email === undefined ? 'email' : 'user_id', message: 'give exactly one' },
    ]);
  }
  const role = input.role ?? 'member';
  assertMayGrant(caller, callerRole, role);
  const user = input.email ? await userDirectory.findByEmail(input.email) : await userDirectory.find(input.user_id!);
  if (!user || user.client_id !== brand.client_id) {
    const field = input.email ? 'email' : 'user_id';
    throw AppError.invalid("No user of the brand's client has this " + (input.email ? 'e-mail address' : 'id'), [
      { location: 'body', field, message: "not a user of the brand's client" },
    ]);
  }
  return addMember(user._id, brandId, role);
}

/** Sets a member's role; an owner's role is changed only by an owner-level caller, never the last owner's. */
export async function updateBrandMember(
  deps: BrandWriteDeps,
  caller: Caller,
  brandId: number,
  userId: string,
  role: JsonBody<'updateBrandMember'>['role'],
): Promise<Schemas['Member']> {
  const { brand, role: callerRole } = await brandAccess(caller, brandId, 'admin');
  return inBrandTurn(deps, brandId, async () => {
    const member = await memberOf(brand, userId);
    if (member.role === role) return toMember(member, await emailOf(userId));
    if (member.role === 'owner' || role === 'owner') assertMayGrant(caller, callerRole, 'owner');
    if (member.role === 'owner') await assertAnotherOwner(brand, userId);
    await BrandMemberModel.updateOne({ _id: member._id, client_id: brand.client_id }, { $set: { role } });
    await deps.cache.invalidate();
    return toMember({ ...member, role }, await emailOf(userId));
  });
}

/** Ends a membership; an owner's only by an owner-level caller, never the last owner's. */
export async function removeBrandMember(
  deps: BrandWriteDeps,
  caller: Caller,
  brandId: number,
  userId: string,
): Promise<JsonAnswer<'removeBrandMember', 200>> {
  const { brand, role: callerRole } = await brandAccess(caller, brandId, 'admin');
  return inBrandTurn(deps, brandId, async () => {
    const member = await memberOf(brand, userId);
    if (member.role === 'owner') {
      assertMayGrant(caller, callerRole, 'owner');
      await assertAnotherOwner(brand, userId);
    }
    await BrandMemberModel.deleteOne({ _id: member._id, client_id: brand.client_id });
    await deps.cache.invalidate();
    return { user_id: userId, brand_id: brandId, removed: true };
  });
}
