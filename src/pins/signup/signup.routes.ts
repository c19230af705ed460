import type { Services } from '../../services';
import type { OperationHandlers } from '../../lib/http/operations';
import { actingBrand } from '../../brands/acting-brand';
import { callerOf, type Caller } from '../../lib/tenancy';
import { assertSubmittedUrl, outboundPolicy } from '../../lib/outbound';

/** Whom a per-caller limit counts: the agent token, the dashboard user, or the client's credential triple. */
const rateSubject = (caller: Caller) =>
  caller.tokenId ? `token:${caller.tokenId}` : caller.userId ? `user:${caller.userId}` : `client:${caller.clientId}`;

/** confirm-pin (an agent acting for its brand) and the three signup operations (authorised by the signup token). */
export function signupRoutes(s: Services): OperationHandlers {
  return {
    async confirmPin(req, res) {
      assertSubmittedUrl(req.body.callback_url, 'callback_url', outboundPolicy(s.config));
      const { brand } = await actingBrand(req, s.brands.lookup);
      res
        .status(202)
        .json(
          await s.signup.confirm(
            { client_id: brand.client_id, brand_id: brand._id },
            req.body,
            rateSubject(callerOf(req)),
          ),
        );
    },
    async resolveSignup(req, res) {
      res.json(await s.signup.resolve(String(req.query.token)));
    },
    async checkSignupName(req, res) {
      res.json(await s.signup.checkName(String(req.query.token), String(req.query.name)));
    },
    async completeSignup(req, res) {
      res.status(202).json(await s.signup.complete(req.body));
    },
  };
}
