import type { AnyRequest } from '../lib/http/operations';
import { AppError } from '../lib/errors';
import { callerOf, type Caller } from '../lib/tenancy';
import { BrandMemberModel, memberId, type BrandDoc, type BrandRole } from './brand.model';
import { brandFromStore, type BrandLookup } from './brand-cache';

export type BrandNeed = 'member' | 'admin';

export interface BrandAccess {
  brand: BrandDoc;
  /**
   * The caller's role in the brand; a super_admin, the client's credential triple and agents acting for it
   * count as admin.
   */
  role: BrandRole;
}

const ADMIN_ROLES: BrandRole[] = ['owner', 'admin'];

/**
 * The one brand access rule, reused by every brand-scoped operation (brands, members, integrations,
 * agent users, pins): a brand of another client, or one the caller does not belong to, is 404 (its
 * existence does not leak); a member without admin or owner where admin is needed is 403.
 * A super_admin and the brand's client's credential triple act as admin; an agent token acts as
 * admin only for the brands it was granted.
 */
export async function brandAccess(
  caller: Caller,
  brandId: number,
  need: BrandNeed,
  find: BrandLookup = brandFromStore,
): Promise<BrandAccess> {
  // Made only when refused: an error captures its stack, which a granted call has no use for.
  const notFound = () => AppError.notFound('Brand not found');
  if (!Number.isSafeInteger(brandId) || brandId < 1) throw notFound();
  if (caller.role === 'super_admin') {
    const brand = await find(brandId, null);
    if (!brand) throw notFound();
    return { brand, role: 'admin' };
  }
  if (!caller.clientId) throw notFound();
  const brand = await find(brandId, caller.clientId);
  if (!brand) throw notFound();
  let role: BrandRole | null = null;
  if (caller.kind === 'client') role = 'admin';
  else if (caller.kind === 'agent') role = caller.brandIds.includes(brandId) ? 'admin' : null;
  else if (caller.userId) {
    const member = await BrandMemberModel.findOne({
      _id: memberId(brandId, caller.userId),
      client_id: caller.clientId,
    }).lean<{ role: BrandRole }>();
    role = member?.role ?? null;
  }
  if (!role) throw notFound();
  if (need === 'admin' && !ADMIN_ROLES.includes(role))
    throw AppError.forbidden('This needs the admin or owner role in the brand');
  return { brand, role };
}

/** The ids of the client's brands in which this user is admin or owner (what they may grant an agent). */
export async function administeredBrands(clientId: string, userId: string): Promise<number[]> {
  const rows = await BrandMemberModel.find(
    { client_id: clientId, user_id: userId, role: { $in: ADMIN_ROLES } },
    { brand_id: 1 },
  ).lean<{ brand_id: number }[]>();
  return rows.map((r) => r.brand_id);
}

/**
 * The brands whose agents the caller manages (lists, revokes): every one (`'all'`) for a super_admin and the
 * client's credential triple, the brands a dashboard user administers (admin or owner) otherwise. An agent
 * manages none.
 */
export async function agentBrandsManagedBy(caller: Caller, clientId: string): Promise<number[] | 'all'> {
  if (caller.role === 'super_admin' || caller.kind === 'client') return 'all';
  if (caller.kind !== 'user' || !caller.userId) return [];
  return administeredBrands(clientId, caller.userId);
}

/**
 * Of `brandIds`, those the caller may hand to an agent: every one for a super_admin and the client's credential
 * triple, the token's own brands for an agent, the brands they administer for a dashboard user.
 */
export async function grantableBrands(caller: Caller, clientId: string, brandIds: number[]): Promise<number[]> {
  if (caller.role === 'super_admin' || caller.kind === 'client') return brandIds;
  if (caller.kind === 'agent') return brandIds.filter((id) => caller.brandIds.includes(id));
  const own = caller.userId ? await administeredBrands(clientId, caller.userId) : [];
  return brandIds.filter((id) => own.includes(id));
}

/** brandAccess for a request whose path carries {brand_id}. */
export function requestBrandAccess(
  req: AnyRequest & { params: { brand_id: number } },
  need: BrandNeed,
): Promise<BrandAccess> {
  return brandAccess(callerOf(req), req.params.brand_id, need);
}
