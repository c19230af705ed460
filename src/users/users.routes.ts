import { AppError } from '../lib/errors';
import type { OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf } from '../lib/tenancy';
import { generatePassword, type UsersService } from './users.service';

/** The caller's own identity, dashboard users as a super_admin manages them, and passwords and their reset. */
export function usersRoutes(deps: { users: UsersService }): OperationHandlers {
  const { users } = deps;
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
      const { role, search } = req.query;
      res.json(await users.list({ role, search }, pageOf(req.query)));
    },
    async createDashboardUser(req, res) {
      res.status(201).json(await users.create(req.body));
    },
    async updateDashboardUser(req, res) {
      res.json(await users.update(req.params.user_id, req.body));
    },
    async deleteDashboardUser(req, res) {
      if (req.params.user_id === callerOf(req).userId) throw AppError.conflict('You cannot remove your own access');
      res.json(await users.remove(req.params.user_id));
    },
    async generatePassword(req, res) {
      await users.getUser(req.params.user_id); // 404 for an unknown user; the password is not stored
      res.json({ password: generatePassword(16) });
    },
    async setUserPassword(req, res) {
      res.json(
        await users.setPassword(
          req.params.user_id,
          req.body.new_password,
          req.body.send_email ?? false,
          callerOf(req).sessionId,
        ),
      );
    },
    async triggerPasswordReset(req, res) {
      res.status(202).json(await users.triggerReset(req.params.user_id));
    },
    async resetPassword(req, res) {
      res.json(await users.resetPassword(req.body.token, req.body.new_password));
    },
  };
}
