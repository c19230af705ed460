import type { Schemas } from '../lib/contract-types';
import { iso } from '../lib/ids';
import type { BrandDoc, BrandRole, MemberDoc } from './brand.model';

/** Settings a brand has before anyone sets them (documented in openapi.yaml's BrandSettings). */
export const SETTINGS_DEFAULTS = {
  default_rate_limit: 60,
  default_campaign_quota_daily: 200,
  default_campaign_quota_monthly: 4000,
  default_campaign_max_concurrent: 3,
  default_campaign_max_locations: 50,
  default_auto_campaign_enabled: false,
  default_auto_campaign_rate_per_hour: 20,
  default_auto_campaign_capacity_threshold: 80,
  fuzziq_enabled: false,
  brand_voice: null,
  brand_tone: null,
  brand_name_meaning: null,
  brand_promise: null,
} as const;

export const INFORMATION_FIELDS = [
  'website',
  'description',
  'industry',
  'street1',
  'street2',
  'city',
  'state',
  'postcode',
  'country',
  'tax_id',
  'vat_id',
  'support_email',
] as const;

/** Where a stored logo is served from: a URL that changes whenever the image does. */
export type LogoUrl = (key: string | null | undefined) => string | null;

export function toBrand(doc: BrandDoc, role: BrandRole, logoUrl: LogoUrl): Schemas['Brand'] {
  return {
    brand_id: doc._id,
    brand_name: doc.brand_name,
    slug: doc.slug,
    client_id: doc.client_id,
    subscription_status: doc.subscription_status,
    is_active: doc.is_active,
    billing_email: doc.billing_email ?? null,
    logo_url: logoUrl(doc.logo_key),
    role,
    created_at: iso(doc.created_at),
    updated_at: iso(doc.updated_at),
  };
}

export function toSettings(doc: BrandDoc, logoUrl: LogoUrl): Schemas['BrandSettings'] {
  return {
    brand_id: doc._id,
    ...SETTINGS_DEFAULTS,
    ...(doc.settings as object),
    logo_url: logoUrl(doc.logo_key),
    updated_at: iso(doc.updated_at),
  };
}

export function toInformation(doc: BrandDoc): Schemas['BrandInformation'] {
  const stored = (doc.information ?? {}) as Record<string, string | null>;
  const fields = Object.fromEntries(INFORMATION_FIELDS.map((f) => [f, stored[f] ?? null])) as Record<
    (typeof INFORMATION_FIELDS)[number],
    string | null
  >;
  return { brand_id: doc._id, ...fields, updated_at: iso(doc.updated_at) };
}

export function toMember(doc: MemberDoc, email: string): Schemas['Member'] {
  return { user_id: doc.user_id, brand_id: doc.brand_id, email, role: doc.role, created_at: iso(doc.created_at) };
}
