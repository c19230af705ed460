import type { OperationHandlers } from '../lib/http/operations';
import { clientAddress } from '../lib/http/client-address';
import { callerOf } from '../lib/tenancy';
import type { ActivityRecorder } from '../activity/recorder';
import { recordLogin } from '../activity/outcomes';
import { SESSION_COOKIE, type AuthService } from './auth.service';
import { cookieOf } from './authenticate';
import { DEVICE_COOKIE, DEVICE_COOKIE_PATH } from './login-devices';

export interface AuthRouteDeps {
  auth: AuthService;
  /** A login is activity of its user. */
  recorder: ActivityRecorder;
  /**
   * The cookies: Secure when the service is reached over HTTPS; the session's living as long as the session, the
   * device's as long as a device is remembered.
   */
  cookie: { secure: boolean; maxAgeSeconds: number; deviceMaxAgeSeconds: number };
}

/** Login (a session as bearer token and cookie, and the device cookie that recognises the device later) and logout. */
export function authRoutes(deps: AuthRouteDeps): OperationHandlers {
  return {
    async login(req, res) {
      const device = cookieOf(req.headers.cookie, DEVICE_COOKIE);
      const { session, deviceToken } = await deps.auth.login(
        req.body.email,
        req.body.password,
        clientAddress(req),
        device,
      );
      await recordLogin(deps.recorder, session.user);
      res.cookie(SESSION_COOKIE, session.access_token, {
        httpOnly: true,
        sameSite: 'lax',
        secure: deps.cookie.secure,
        path: '/',
        maxAge: deps.cookie.maxAgeSeconds * 1000,
      });
      // Only the login operation reads it, and only from the dashboard's own pages (no cross-site request carries it).
      res.cookie(DEVICE_COOKIE, deviceToken, {
        httpOnly: true,
        sameSite: 'strict',
        secure: deps.cookie.secure,
        path: DEVICE_COOKIE_PATH,
        maxAge: deps.cookie.deviceMaxAgeSeconds * 1000,
      });
      res.json(session);
    },
    async logout(req, res) {
      const result = await deps.auth.logout(callerOf(req).sessionId);
      res.clearCookie(SESSION_COOKIE, { path: '/' });
      res.json(result);
    },
  };
}
