import type { Services } from '../services';
import type { OperationHandlers } from '../lib/http/operations';
import { callerOf } from '../lib/tenancy';
import { SESSION_COOKIE } from './auth.service';
import { recordLogin } from '../activity/outcomes';

export function authRoutes(s: Services): OperationHandlers {
  const secureCookie = s.config.publicBaseUrl.startsWith('https://');
  return {
    async login(req, res) {
      const result = await s.auth.login(req.body.email, req.body.password, req.ip ?? 'unknown');
      await recordLogin(s.activity.recorder, result.user);
      res.cookie(SESSION_COOKIE, result.access_token, {
        httpOnly: true,
        sameSite: 'lax',
        secure: secureCookie,
        path: '/',
        maxAge: s.config.SESSION_TTL_SECONDS * 1000,
      });
      res.json(result);
    },
    async logout(req, res) {
      const result = await s.auth.logout(callerOf(req).sessionId);
      res.clearCookie(SESSION_COOKIE, { path: '/' });
      res.json(result);
    },
    async resetPassword(req, res) {
      res.json(await s.users.resetPassword(req.body.token, req.body.new_password));
    },
  };
}
