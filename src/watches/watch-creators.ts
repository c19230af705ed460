import type { RunLocked } from '../lib/locks';
import type { Logger } from '../lib/logger';
import { WatchModel, type PausedReason, type WatchDoc } from './watch.model';
import type { WatchWorkflows } from './watches.workflows';

/**
 * Someone who created watches can no longer act: a dashboard user deactivated, deleted or moved to another client
 * (`clientId`: the client it left; absent: every client), or an agent token revoked (`remainingBrandIds` null), its
 * agent user revoked in a brand (the brands the token still acts for), or replaced by a new token (`replacedBy`, with
 * the brands the new one acts for).
 */
export type CreatorGone =
  | { kind: 'user'; userId: string; clientId?: string }
  | { kind: 'agent'; clientId: string; tokenId: string; remainingBrandIds: number[] | null; replacedBy?: string };

/**
 * What becomes of a watch whose creator is gone (docs/watches.md, "Who a watch runs for"): it is paused, its schedule
 * too, with the reason on the watch, until an authorised caller resumes it and so becomes its creator. An agent's
 * watch pauses when its token is revoked or no longer acts for any brand it created the watch for; a token
 * replaced by a new one (regenerated) hands its watches to the new token for the brands it keeps.
 */
export function createWatchCreators(deps: {
  workflows: Pick<WatchWorkflows, 'sync'>;
  lock: RunLocked;
  logger: Logger;
}) {
  /** Under the watch's lock, as every change of a watch: the record first, then the schedule, best effort. */
  async function change(watch: WatchDoc, set: Partial<WatchDoc>) {
    await deps.lock(`watch:${watch._id}`, async () => {
      const updated = await WatchModel.findOneAndUpdate(
        { _id: watch._id, client_id: watch.client_id },
        { $set: set },
        { returnDocument: 'after' },
      ).lean<WatchDoc>();
      if (!updated || updated.state === watch.state) return;
      // A schedule Temporal did not pause now is paused by the watch's next run, which finds the reason and does
      // nothing (watch-runs.ts): the revoke that brought this is not held up by Temporal.
      await deps.workflows
        .sync(updated)
        .catch((err) =>
          deps.logger.warn({ err, watch_id: watch._id }, 'schedule of a watch whose creator is gone not paused yet'),
        );
    });
  }

  const pause = (watch: WatchDoc, reason: PausedReason) => change(watch, { state: 'paused', paused_reason: reason });

  return {
    async gone(event: CreatorGone): Promise<void> {
      if (event.kind === 'user') {
        const query = WatchModel.find({
          'creator.kind': 'user',
          'creator.id': event.userId,
          paused_reason: null,
          ...(event.clientId ? { client_id: event.clientId } : {}),
        });
        if (!event.clientId) query.setOptions({ allTenants: true }); // a super_admin's watches are in any client
        for (const watch of await query.lean<WatchDoc[]>()) await pause(watch, 'creator_deactivated');
        return;
      }
      const watches = await WatchModel.find({
        client_id: event.clientId,
        'creator.kind': 'agent',
        'creator.id': event.tokenId,
        paused_reason: null,
      }).lean<WatchDoc[]>();
      for (const watch of watches) {
        const created = watch.creator?.brand_ids ?? [];
        const kept =
          event.remainingBrandIds === null ? null : created.filter((b) => event.remainingBrandIds!.includes(b));
        // A watch made for no brand goes with the token itself; one made for brands, with the last of them.
        const stays = kept !== null && (created.length === 0 || kept.length > 0);
        if (!stays) await pause(watch, 'creator_token_revoked');
        else if (event.replacedBy)
          await change(watch, { creator: { kind: 'agent', id: event.replacedBy, brand_ids: kept! } });
      }
    },
  };
}

export type WatchCreators = ReturnType<typeof createWatchCreators>;
