import type { Services } from '../services';
import { AppError } from '../lib/errors';
import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf } from '../lib/tenancy';
import { generatePassword } from './users.service';

export function usersRoutes(s: Services): OperationHandlers {
  return {
    async getMe(req, res) {
      // The caller was resolved from current records (a user's change invalidates cached callers): an inactive
      // user or client never gets this far.
      const caller = callerOf(req);
      res.json({
        kind: caller.kind,
        user_id: caller.userId,
        email: caller.email,
        role: caller.role,
        client_id: caller.clientId,
        permissions: caller.permissions,
        is_active: true,
      });
    },
    async listDashboardUsers(req, res) {
      const { role, search } = req.query as { role?: string; search?: string };
      res.json(await s.users.list({ role, search }, pageOf(req)));
    },
    async createDashboardUser(req, res) {
      res.status(201).json(await s.users.create(req.body));
    },
    async updateDashboardUser(req, res) {
      res.json(await s.users.update(pathParam(req, 'user_id'), req.body));
    },
    async deleteDashboardUser(req, res) {
      if (pathParam(req, 'user_id') === callerOf(req).userId)
        throw AppError.conflict('You cannot remove your own access');
      res.json(await s.users.remove(pathParam(req, 'user_id')));
    },
    async generatePassword(req, res) {
      await s.users.getUser(pathParam(req, 'user_id')); // 404 for an unknown user; the password is not stored
      res.json({ password: generatePassword(16) });
    },
    async setUserPassword(req, res) {
      res.json(
        await s.users.setPassword(
          pathParam(req, 'user_id'),
          req.body.new_password,
          req.body.send_email ?? false,
          callerOf(req).sessionId,
        ),
      );
    },
    async triggerPasswordReset(req, res) {
      res.status(202).json(await s.users.triggerReset(pathParam(req, 'user_id')));
    },
  };
}
