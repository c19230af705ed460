import type { Caller, CredentialCheck } from './tenancy';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      caller?: Caller;
      /** How to ask again whether the caller's credential still holds (set with `caller`). */
      credential?: CredentialCheck;
      requestId?: string;
    }
  }
}

export {};
