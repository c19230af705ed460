import type { AnyRequest, OperationHandlers } from '../lib/http/operations';
import { actingBrand } from '../brands/acting-brand';
import type { BrandLookup } from '../brands/brand-cache';
import { callerOf, type Caller } from '../lib/tenancy';
import { assertSubmittedUrl, type OutboundPolicy } from '../lib/outbound';
import type { PinsService } from './pins.service';
import type { SignupService } from './signup/signup.service';

export interface PinsRouteDeps {
  pins: PinsService;
  signup: SignupService;
  /** Resolves the brand an agent operation acts for. */
  brands: BrandLookup;
  outbound: OutboundPolicy;
}

/** Whom a per-caller limit counts: the agent token, the dashboard user, or the client's credential triple. */
const rateSubject = (caller: Caller) =>
  caller.tokenId ? `token:${caller.tokenId}` : caller.userId ? `user:${caller.userId}` : `client:${caller.clientId}`;

/**
 * The signup token from the link: the contract's signupToken security scheme carries it as the query parameter
 * `token` (authentication checked it is there), which is why the operations' query parameters do not list it.
 */
const signupTokenOf = (req: AnyRequest) => String((req.query as { token?: unknown }).token);

/**
 * The registry's agent operations (acting for a brand) and the signup operations (authorised by the signup
 * token): resolve, search and preview pins, reserve a name (confirm-pin), and the end user's claim.
 */
export function pinsRoutes(deps: PinsRouteDeps): OperationHandlers {
  return {
    async resolvePin(req, res) {
      await actingBrand(req, deps.brands);
      res.json(await deps.pins.resolve(req.query.pin_id));
    },
    async searchPins(req, res) {
      await actingBrand(req, deps.brands);
      res.json(await deps.pins.search(req.body));
    },
    async previewPin(req, res) {
      await actingBrand(req, deps.brands);
      res.json(await deps.pins.preview(req.body));
    },
    async confirmPin(req, res) {
      assertSubmittedUrl(req.body.callback_url, 'callback_url', deps.outbound);
      const { brand } = await actingBrand(req, deps.brands);
      const brandRef = { client_id: brand.client_id, brand_id: brand._id };
      res.status(202).json(await deps.signup.confirm(brandRef, req.body, rateSubject(callerOf(req))));
    },
    async resolveSignup(req, res) {
      res.json(await deps.signup.resolve(signupTokenOf(req)));
    },
    async checkSignupName(req, res) {
      res.json(await deps.signup.checkName(signupTokenOf(req), req.query.name));
    },
    async completeSignup(req, res) {
      res.status(202).json(await deps.signup.complete(req.body));
    },
  };
}
