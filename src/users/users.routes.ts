import { AppError } from '../lib/errors';
import { clientAddress } from '../lib/http/client-address';
import type { Logger } from '../lib/logger';
import type { OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { callerOf } from '../lib/tenancy';
import { generatePassword, type UsersService } from './users.service';

/** The caller's own identity, dashboard users as a super_admin manages them, and passwords and their reset. */
export function usersRoutes(deps: { users: UsersService; logger: Logger }): OperationHandlers {
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
    /**
     * "Forgot your password?". The answer must not tell whether the account exists, in what it says or in how long
     * it takes. Everything up to the answer is the same work either way: the throttle (counted per e-mail, so an
     * unknown address is throttled as a known one is) and one indexed lookup by e-mail. What only a known account
     * costs, a reset record written and a delivery workflow started (a MongoDB insert and a Temporal round trip,
     * tens of milliseconds: measurable from outside), comes after the 202 is sent. Doing "the same work" for an
     * unknown account, as login hashes a password for one, would mean a reset record and a delivery for nobody;
     * answering first costs nothing. Once started, the delivery workflow is durable; a failure to start it (Temporal
     * down) is logged, and the user asks again.
     */
    async requestPasswordReset(req, res) {
      const email: string = req.body.email;
      await users.countResetRequest(email, clientAddress(req));
      const userId = await users.resetRecipient(email);
      res.status(202).json({ accepted: true });
      if (!userId) return;
      await users
        .triggerReset(userId)
        .catch((err: unknown) =>
          deps.logger.error({ err: (err as Error)?.message, user_id: userId }, 'password-reset e-mail not started'),
        );
    },
    async resetPassword(req, res) {
      res.json(await users.resetPassword(req.body.token, req.body.new_password));
    },
  };
}
