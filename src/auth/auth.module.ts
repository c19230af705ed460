import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { authRoutes } from './auth.routes';
import { createAuthService, type AuthDeps } from './auth.service';
import { loginDevices } from './login-devices';

export type AuthModuleDeps = Pick<
  Infra,
  'config' | 'engines' | 'credentials' | 'recorder' | 'publicBaseUrl' | 'clock'
> &
  Pick<AuthDeps, 'clients' | 'users'>;

/**
 * Who is calling: login and logout of dashboard sessions, and the resolution of every bearer credential
 * (a credential triple, a session, an agent's access token) that authenticate() applies to each operation.
 */
export function createAuthModule(deps: AuthModuleDeps) {
  const { config } = deps;
  const auth = createAuthService({
    clients: deps.clients,
    users: deps.users,
    sessionTtlSeconds: config.SESSION_TTL_SECONDS,
    credentialCache: deps.credentials,
    redis: deps.engines.redis,
    clock: deps.clock,
    loginFailures: { max: config.LOGIN_MAX_FAILURES, seconds: config.LOGIN_FAILURE_WINDOW_SECONDS },
    loginAccountsPerAddress: config.LOGIN_ADDRESS_MAX_ACCOUNTS,
    devices: loginDevices({ lifetimeSeconds: config.LOGIN_DEVICE_TTL_SECONDS, perUser: config.LOGIN_DEVICES_PER_USER }),
  });
  return {
    handlers: authRoutes({
      auth,
      recorder: deps.recorder,
      cookie: {
        secure: deps.publicBaseUrl.startsWith('https://'),
        maxAgeSeconds: config.SESSION_TTL_SECONDS,
        deviceMaxAgeSeconds: config.LOGIN_DEVICE_TTL_SECONDS,
      },
    }),
    /** The caller a bearer credential stands for, or null (what authenticate() asks). */
    resolve: auth.resolve,
    /** Why a credential resolve() no longer accepts was refused (an event stream's last word). */
    whyRefused: auth.whyRefused,
  } satisfies AreaModule;
}
