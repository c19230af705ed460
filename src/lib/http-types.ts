import type { Caller } from './tenancy';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      caller?: Caller;
      requestId?: string;
    }
  }
}

export {};
