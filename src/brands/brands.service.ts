import type Redis from 'ioredis';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import type { RunLocked } from '../lib/locks';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import { tenantQuery, type Caller } from '../lib/tenancy';
import type { MediaStorage } from '../media/storage';
import { assertSelectedClient } from '../clients/selected-client';
import { countryExists } from '../locations/dataset';
import { userDirectory } from '../users/user-directory';
import { brandAccess } from './brand-access';
import type { BrandCache } from './brand-cache';
import { insertWithNewBrandId } from './brand-ids';
import { BrandMemberModel, BrandModel, memberId, type BrandDoc, type BrandRole, type MemberDoc } from './brand.model';
import { toBrand, toInformation, toMember, toSettings, type LogoUrl } from './brand.views';
import { decodeImage, processImage } from '../media/image';

export interface BrandsDeps {
  redis: Redis;
  storage: MediaStorage;
  lock: RunLocked;
  publicBaseUrl: string;
  /** The agent operations' brand cache: every write below invalidates it. */
  cache: BrandCache;
}

export const LOGO_PATH = '/api/v1/brand-logos';
/** A logo is center-cropped to a square of at most this side. */
export const LOGO_MAX_PX = 256;
const logoKey = (brandId: number, sha256: string) => `brand-logos/${brandId}/${sha256}.webp`;

export function createBrandsService(deps: BrandsDeps) {
  const logoUrl: LogoUrl = (key) =>
    key ? `${deps.publicBaseUrl}${LOGO_PATH}/${key.slice('brand-logos/'.length)}` : null;
  /**
   * Read-modify-write steps on one brand take turns (FerretDB does not apply concurrent updates of a document
   * atomically).
   */
  const locked = <T>(brandId: number, work: () => Promise<T>) => deps.lock(`brand:${brandId}`, work);

  async function reload(brand: BrandDoc): Promise<BrandDoc> {
    const doc = await BrandModel.findOne({ _id: brand._id, client_id: brand.client_id }).lean<BrandDoc>();
    if (!doc) throw AppError.notFound('Brand not found');
    return doc;
  }

  async function setFields(brand: BrandDoc, set: Record<string, unknown>): Promise<BrandDoc> {
    await BrandModel.updateOne({ _id: brand._id, client_id: brand.client_id }, { $set: set });
    await deps.cache.invalidate();
    return reload(brand);
  }

  const prefixed = (prefix: string, patch: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(patch).map(([k, v]) => [`${prefix}.${k}`, v]));

  /** Drops a just-written object the brand does not point to after a failed write (an orphan otherwise). */
  async function dropIfUnrecorded(brand: BrandDoc, key: string): Promise<void> {
    try {
      const now = await BrandModel.findOne({ _id: brand._id, client_id: brand.client_id }, { logo_key: 1 }).lean<{
        logo_key: string | null;
      }>();
      if (now && now.logo_key !== key) await deps.storage.delete(key);
    } catch {
      // Unknown whether the write landed: keeping a possible orphan beats a dangling logo_url.
    }
  }

  async function storeLogo(brand: BrandDoc, key: string | null): Promise<BrandDoc> {
    try {
      await BrandModel.updateOne({ _id: brand._id, client_id: brand.client_id }, { $set: { logo_key: key } });
      await deps.cache.invalidate();
    } catch (err) {
      if (key && key !== brand.logo_key) await dropIfUnrecorded(brand, key);
      throw err;
    }
    // The old object goes only after the brand points elsewhere, so a reader never sees a dangling URL.
    if (brand.logo_key && brand.logo_key !== key) await deps.storage.delete(brand.logo_key);
    return reload(brand);
  }

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

  return {
    logoUrl,
    /** A brand by id through the cache (the agent operations' acting brand). */
    lookup: deps.cache.lookup,

    async list(caller: Caller, tenant: string | null, page: Page) {
      if (caller.role === 'super_admin' || caller.kind === 'client') {
        const { filter, options } = tenantQuery(tenant);
        const { docs, total } = await findPage<BrandDoc>(BrandModel, { filter, sort: { _id: 1 }, options }, page);
        return pageEnvelope(
          'brands',
          docs.map((d) => toBrand(d, 'admin', logoUrl)),
          total,
          page,
        );
      }
      if (!caller.userId || !caller.clientId) return pageEnvelope('brands', [], 0, page);
      const memberships = await BrandMemberModel.find({ client_id: caller.clientId, user_id: caller.userId })
        .sort({ brand_id: 1 })
        .lean<MemberDoc[]>();
      const slice = memberships.slice(page.skip, page.skip + page.page_size);
      const docs = await BrandModel.find({
        client_id: caller.clientId,
        _id: { $in: slice.map((m) => m.brand_id) },
      }).lean<BrandDoc[]>();
      const byId = new Map(docs.map((d) => [d._id, d]));
      const brands = slice
        .filter((m) => byId.has(m.brand_id))
        .map((m) => toBrand(byId.get(m.brand_id)!, m.role as BrandRole, logoUrl));
      return pageEnvelope('brands', brands, memberships.length, page);
    },

    async create(caller: Caller, clientId: string, input: { brand_name: string; slug: string }) {
      await assertSelectedClient(clientId, caller.role === 'super_admin');
      try {
        const doc = await insertWithNewBrandId(deps.redis, async (id) => {
          const created = await BrandModel.create({
            _id: id,
            client_id: clientId,
            brand_name: input.brand_name,
            slug: input.slug,
          });
          return created.toObject() as BrandDoc;
        });
        const ownerIsMember = caller.kind === 'user' && caller.userId && caller.clientId === clientId;
        if (ownerIsMember) {
          try {
            await BrandMemberModel.create({
              _id: memberId(doc._id, caller.userId!),
              client_id: clientId,
              brand_id: doc._id,
              user_id: caller.userId!,
              role: 'owner',
            });
          } catch (err) {
            // A brand without its owner would hold the slug while its creator cannot see it: undo, so a retry works.
            await BrandModel.deleteOne({ _id: doc._id, client_id: clientId })
              .then(deps.cache.invalidate)
              .catch(() => undefined);
            throw err;
          }
        }
        return toBrand(doc, ownerIsMember ? 'owner' : 'admin', logoUrl);
      } catch (err) {
        if (isDuplicateKeyError(err)) throw AppError.conflict(`A brand with slug ${input.slug} already exists`);
        throw err;
      }
    },

    async get(caller: Caller, brandId: number) {
      const { brand, role } = await brandAccess(caller, brandId, 'member');
      return toBrand(brand, role, logoUrl);
    },

    async update(caller: Caller, brandId: number, patch: Record<string, unknown>) {
      const { brand, role } = await brandAccess(caller, brandId, 'admin');
      return toBrand(await locked(brandId, () => setFields(brand, patch)), role, logoUrl);
    },

    async settings(caller: Caller, brandId: number) {
      return toSettings((await brandAccess(caller, brandId, 'admin')).brand, logoUrl);
    },

    async updateSettings(caller: Caller, brandId: number, patch: Record<string, unknown>) {
      const { brand } = await brandAccess(caller, brandId, 'admin');
      return toSettings(await locked(brandId, () => setFields(brand, prefixed('settings', patch))), logoUrl);
    },

    async information(caller: Caller, brandId: number) {
      return toInformation((await brandAccess(caller, brandId, 'admin')).brand);
    },

    async updateInformation(caller: Caller, brandId: number, patch: Record<string, unknown>) {
      const { brand } = await brandAccess(caller, brandId, 'admin');
      // The contract's pattern admits any two capitals; only an assigned ISO 3166-1 code is a country.
      if (typeof patch.country === 'string' && !countryExists(patch.country)) {
        throw AppError.invalid(`Unknown country ${patch.country}`, [
          { location: 'body', field: 'country', message: 'not an ISO 3166-1 alpha-2 country code' },
        ]);
      }
      return toInformation(await locked(brandId, () => setFields(brand, prefixed('information', patch))));
    },

    async uploadLogo(caller: Caller, brandId: number, file: string) {
      await brandAccess(caller, brandId, 'admin');
      const logo = await processImage(decodeImage(file, 'logo'), 'logo', { square: LOGO_MAX_PX });
      const key = logoKey(brandId, logo.sha256);
      const doc = await locked(brandId, async () => {
        const { brand } = await brandAccess(caller, brandId, 'admin'); // the logo as it is now, inside the turn
        await deps.storage.put(key, logo.webp, 'image/webp');
        return storeLogo(brand, key);
      });
      return { brand_id: brandId, logo_url: logoUrl(doc.logo_key), updated_at: doc.updated_at.toISOString() };
    },

    async deleteLogo(caller: Caller, brandId: number) {
      await brandAccess(caller, brandId, 'admin');
      const doc = await locked(brandId, async () =>
        storeLogo((await brandAccess(caller, brandId, 'admin')).brand, null),
      );
      return { brand_id: brandId, logo_url: null, updated_at: doc.updated_at.toISOString() };
    },

    /** The stored logo object for a public URL, or null. Keys are content-addressed, so the hash is the ETag. */
    async logoObject(brandId: number, file: string) {
      const key = `brand-logos/${brandId}/${file}`;
      const head = await deps.storage.head(key);
      return head ? { key, head, stream: () => deps.storage.get(key) } : null;
    },

    async members(caller: Caller, brandId: number, page: Page) {
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
    },

    /**
     * A brand's owner or admin (or a super_admin, or the client's triple) adds a user of the brand's client, named
     * by e-mail or id. No such user and a user of another client read alike (422), so nobody learns who exists
     * elsewhere; only an owner-level caller makes an owner.
     */
    async addBrandMember(
      caller: Caller,
      brandId: number,
      input: { email?: string; user_id?: string; role?: BrandRole },
    ) {
      const { brand, role: callerRole } = await brandAccess(caller, brandId, 'admin');
      if ((input.email === undefined) === (input.user_id === undefined)) {
        throw AppError.invalid('Name the user by email or by user_id (exactly one)', [
          { location: 'body', field: input.email === undefined ? 'email' : 'user_id', message: 'give exactly one' },
        ]);
      }
      const role = input.role ?? 'member';
      assertMayGrant(caller, callerRole, role);
      const user = input.email
        ? await userDirectory.findByEmail(input.email)
        : await userDirectory.find(input.user_id!);
      if (!user || user.client_id !== brand.client_id) {
        const field = input.email ? 'email' : 'user_id';
        throw AppError.invalid("No user of the brand's client has this " + (input.email ? 'e-mail address' : 'id'), [
          { location: 'body', field, message: "not a user of the brand's client" },
        ]);
      }
      return this.addMember(user._id, brandId, role);
    },

    /** Sets a member's role; an owner's role is changed only by an owner-level caller, never the last owner's. */
    async updateBrandMember(caller: Caller, brandId: number, userId: string, role: BrandRole) {
      const { brand, role: callerRole } = await brandAccess(caller, brandId, 'admin');
      return locked(brandId, async () => {
        const member = await memberOf(brand, userId);
        if (member.role === role) return toMember(member, await emailOf(userId));
        if (member.role === 'owner' || role === 'owner') assertMayGrant(caller, callerRole, 'owner');
        if (member.role === 'owner') await assertAnotherOwner(brand, userId);
        await BrandMemberModel.updateOne({ _id: member._id, client_id: brand.client_id }, { $set: { role } });
        await deps.cache.invalidate();
        return toMember({ ...member, role }, await emailOf(userId));
      });
    },

    /** Ends a membership; an owner's only by an owner-level caller, never the last owner's. */
    async removeBrandMember(caller: Caller, brandId: number, userId: string) {
      const { brand, role: callerRole } = await brandAccess(caller, brandId, 'admin');
      return locked(brandId, async () => {
        const member = await memberOf(brand, userId);
        if (member.role === 'owner') {
          assertMayGrant(caller, callerRole, 'owner');
          await assertAnotherOwner(brand, userId);
        }
        await BrandMemberModel.deleteOne({ _id: member._id, client_id: brand.client_id });
        await deps.cache.invalidate();
        return { user_id: userId, brand_id: brandId, removed: true };
      });
    },

    /** Super-admin: makes a user of the brand's client a member at once (409 when already one). */
    async addMember(userId: string, brandId: number, role: BrandRole) {
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
    },
  };
}

export type BrandsService = ReturnType<typeof createBrandsService>;
