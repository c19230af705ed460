import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { sendResetPasswordPage } from './reset-password.page';
import { usersRoutes } from './users.routes';
import { createUsersService } from './users.service';
import type { CreatorGone } from '../watches/watch-creators';

export type UsersDeps = Pick<
  Infra,
  'config' | 'engines' | 'logger' | 'notifier' | 'credentials' | 'publicBaseUrl' | 'clock'
> & {
  /** Pauses the watches of a user that can no longer act in a client (the watches area). */
  creatorGone?: (gone: CreatorGone) => Promise<void>;
};

/**
 * Dashboard users: their accounts and roles, passwords set by an administrator, and the reset link a user
 * follows to the reset-password page. A change that may take access away invalidates the credential cache.
 */
export function createUsersModule(deps: UsersDeps) {
  const { config, notifier, credentials } = deps;
  const users = createUsersService({
    notifier,
    publicBaseUrl: deps.publicBaseUrl,
    resetTtlSeconds: config.PASSWORD_RESET_TTL_SECONDS,
    invalidateCredentials: credentials.invalidate,
    creatorGone: deps.creatorGone,
    redis: deps.engines.redis,
    clock: deps.clock,
    resetRequests: {
      perAccount: config.PASSWORD_RESET_REQUESTS_PER_ACCOUNT,
      perAddress: config.PASSWORD_RESET_REQUESTS_PER_ADDRESS,
    },
  });
  return {
    handlers: usersRoutes({ users, logger: deps.logger }),
    pages: { '/reset-password': sendResetPasswordPage },
    /** What other areas use: the login check. */
    service: users,
  } satisfies AreaModule;
}
