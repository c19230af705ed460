/**
 * Type-level tests of the integrations, agents and brands services: what they take is the contract's type, so a
 * service that reads a field the contract does not declare fails `npm run typecheck` (never run by Jest). Each
 * `@ts-expect-error` line must fail to compile; the lines without one are what the same types must accept.
 */
import type { JsonBody } from '../../src/lib/contract-types';
import type { IntegrationsService } from '../../src/integrations/integrations.service';
import type { AccessRequests } from '../../src/agents/access-requests.service';
import type { Tokens } from '../../src/agents/tokens.service';
import type { BrandsService } from '../../src/brands/brands.service';
import type { Input } from './type-assertions';

export function readsOnlyDeclaredFields(
  newKey: Input<IntegrationsService['create'], 1>,
  keyChanges: Input<IntegrationsService['update'], 2>,
  byClientId: Input<AccessRequests['request'], 0>,
  byEmail: Input<AccessRequests['requestByEmail'], 0>,
  limits: Input<Tokens['updateAgentUserLimits'], 3>,
  brandPatch: Input<BrandsService['update'], 2>,
  settings: Input<BrandsService['updateSettings'], 2>,
  information: Input<BrandsService['updateInformation'], 2>,
  member: Input<BrandsService['addBrandMember'], 2>,
) {
  void [newKey.provider_name, keyChanges.is_active, byClientId.owner_email, byEmail.allowed_models];
  void [limits.rate_limit_rpm, brandPatch.billing_email, settings.brand_voice, information.country, member.role];
  // @ts-expect-error createIntegration declares no is_active (a key is created active)
  void newKey.is_active;
  // @ts-expect-error updateIntegration declares no provider_name (a key keeps its provider)
  void keyChanges.provider_name;
  // @ts-expect-error requestAccessToken declares no allowed_models (only a request by e-mail names them)
  void byClientId.allowed_models;
  // @ts-expect-error requestAccessTokenByEmail declares no owner_email
  void byEmail.owner_email;
  // @ts-expect-error AgentLimitsChange declares no allowed_models
  void limits.allowed_models;
  // @ts-expect-error updateBrand declares no slug (a brand keeps its slug)
  void brandPatch.slug;
  // @ts-expect-error updateBrandSettings declares no logo_url (the logo has its own operation)
  void settings.logo_url;
  // @ts-expect-error updateBrandInformation declares no brand_name
  void information.brand_name;
  // @ts-expect-error addBrandMember declares no brand_id (the path names the brand)
  void member.brand_id;
}

/** The services take the contract's bodies as they are. */
export const accepted: [
  JsonBody<'createIntegration'> extends Input<IntegrationsService['create'], 1> ? true : false,
  JsonBody<'requestAccessTokenByEmail'> extends Input<AccessRequests['requestByEmail'], 0> ? true : false,
  JsonBody<'addBrandMember'> extends Input<BrandsService['addBrandMember'], 2> ? true : false,
] = [true, true, true];
