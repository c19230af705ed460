import type Redis from 'ioredis';
import type { JsonBody } from '../lib/contract-types';
import type { RunLocked } from '../lib/locks';
import type { Page } from '../lib/pagination';
import type { Caller } from '../lib/tenancy';
import type { MediaStorage } from '../media/storage';
import type { BrandCache } from './brand-cache';
import { createBrand, listBrands } from './brand-records';
import {
  brandInformation,
  brandSettings,
  getBrand,
  updateBrand,
  updateBrandInformation,
  updateBrandSettings,
} from './brand-fields';
import { deleteLogo, logoObject, logoUrlFor, uploadLogo } from './brand-logo';
import { addBrandMember, addMember, listMembers, removeBrandMember, updateBrandMember } from './brand-members';

export interface BrandsDeps {
  redis: Redis;
  storage: MediaStorage;
  lock: RunLocked;
  publicBaseUrl: string;
  /** The agent operations' brand cache: every write below invalidates it. */
  cache: BrandCache;
}

/**
 * A client's brands (brand-records.ts), their fields, settings and information (brand-fields.ts), their logo
 * (brand-logo.ts) and their members (brand-members.ts).
 */
export function createBrandsService(deps: BrandsDeps) {
  const logoUrl = logoUrlFor(deps.publicBaseUrl);
  const ctx = { ...deps, logoUrl };
  return {
    logoUrl,
    /** A brand by id through the cache (the agent operations' acting brand). */
    lookup: deps.cache.lookup,
    list: (caller: Caller, tenant: string | null, page: Page) => listBrands(logoUrl, caller, tenant, page),
    create: (caller: Caller, clientId: string, input: JsonBody<'createBrand'>) =>
      createBrand(ctx, caller, clientId, input),
    get: (caller: Caller, brandId: number) => getBrand(logoUrl, caller, brandId),
    update: (caller: Caller, brandId: number, patch: JsonBody<'updateBrand'>) =>
      updateBrand(ctx, caller, brandId, patch),
    settings: (caller: Caller, brandId: number) => brandSettings(logoUrl, caller, brandId),
    updateSettings: (caller: Caller, brandId: number, patch: JsonBody<'updateBrandSettings'>) =>
      updateBrandSettings(ctx, caller, brandId, patch),
    information: brandInformation,
    updateInformation: (caller: Caller, brandId: number, patch: JsonBody<'updateBrandInformation'>) =>
      updateBrandInformation(ctx, caller, brandId, patch),
    uploadLogo: (caller: Caller, brandId: number, file: JsonBody<'uploadBrandLogo'>['file']) =>
      uploadLogo(ctx, caller, brandId, file),
    deleteLogo: (caller: Caller, brandId: number) => deleteLogo(ctx, caller, brandId),
    logoObject: (brandId: number, file: string) => logoObject(deps.storage, brandId, file),
    members: listMembers,
    addBrandMember,
    updateBrandMember: (caller: Caller, brandId: number, userId: string, role: JsonBody<'updateBrandMember'>['role']) =>
      updateBrandMember(deps, caller, brandId, userId, role),
    removeBrandMember: (caller: Caller, brandId: number, userId: string) =>
      removeBrandMember(deps, caller, brandId, userId),
    /** Super-admin: makes a user of the brand's client a member at once (409 when already one). */
    addMember,
  };
}

export type BrandsService = ReturnType<typeof createBrandsService>;
