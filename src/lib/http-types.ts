import type { Caller, CredentialCheck } from './tenancy';
import type { IdempotencyClaim } from './http/idempotency';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      caller?: Caller;
      /** How to ask again whether the caller's credential still holds (set with `caller`). */
      credential?: CredentialCheck;
      requestId?: string;
      /** The request's Idempotency-Key, claimed for it (on operations that declare the header). */
      idempotency?: IdempotencyClaim;
    }
  }
}

export {};
