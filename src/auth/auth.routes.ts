import type { OperationHandlers } from '../lib/http/operations';
import { clientAddress } from '../lib/http/client-address';
import { callerOf } from '../lib/tenancy';
import type { ActivityRecorder } from '../activity/recorder';
import { recordLogin } from '../activity/outcomes';
import { SESSION_COOKIE, type AuthService } from './auth.service';

export interface AuthRouteDeps {
  auth: AuthService;
  /** A login is activity of its user. */
  recorder: ActivityRecorder;
  /** The session cookie: Secure when the service is reached over HTTPS, living as long as the session. */
  cookie: { secure: boolean; maxAgeSeconds: number };
}

/** Login (a session as bearer token and cookie) and logout. */
export function authRoutes(deps: AuthRouteDeps): OperationHandlers {
  return {
    async login(req, res) {
      const result = await deps.auth.login(req.body.email, req.body.password, clientAddress(req));
      await recordLogin(deps.recorder, result.user);
      res.cookie(SESSION_COOKIE, result.access_token, {
        httpOnly: true,
        sameSite: 'lax',
        secure: deps.cookie.secure,
        path: '/',
        maxAge: deps.cookie.maxAgeSeconds * 1000,
      });
      res.json(result);
    },
    async logout(req, res) {
      const result = await deps.auth.logout(callerOf(req).sessionId);
      res.clearCookie(SESSION_COOKIE, { path: '/' });
      res.json(result);
    },
  };
}
