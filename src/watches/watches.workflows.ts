import {
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import type { SearchAttributeGate } from '../lib/engines/search-attributes';
import { withinDeadline } from '../lib/engines/temporal';
import { AppError } from '../lib/errors';
import { unavailableEngine } from '../lib/http/engine-errors';
import { searchAttributesOf } from '../../workflows/search-attributes';
import { watchRunWorkflow } from '../../workflows/watches';
import { watchRunWorkflowId, watchScheduleId } from '../../workflows/watches-api';
import { scheduleSpecOf, type Cadence } from './cadence';
import type { WatchDoc } from './watch.model';

/**
 * A cadence Temporal refuses though the service's own checks passed it (the SDK answers INVALID_ARGUMENT's "Invalid
 * schedule spec" as a TypeError): 422 with Temporal's words.
 */
function refusedSpec(err: unknown): unknown {
  if (!(err instanceof TypeError)) return err;
  return AppError.invalid(`Temporal refused the cadence: ${err.message}`, [
    { location: 'body', field: 'cadence', message: err.message },
  ]);
}

/**
 * A watch's Temporal Schedule (`watch-<watch_id>`), made from its record: it starts watchRunWorkflow (by function)
 * on the interactive task queue at the cadence's times, never two at once (overlap SKIP: a run due while one is
 * going is skipped), a missed one within the watch's catch-up window. The schedule and the runs it starts carry the
 * client's search attributes (where the namespace has them), so operators find a client's watches in the Temporal
 * UI's Schedules by `LeadClientId`; the memo names the client and the watch.
 */
export function createWatchWorkflows(
  temporal: Client,
  taskQueue: string,
  searchAttributes: Pick<SearchAttributeGate, 'ready'>,
) {
  const handle = (watchId: string) => temporal.schedule.getHandle(watchScheduleId(watchId));

  function optionsOf(
    watch: Pick<WatchDoc, '_id' | 'client_id' | 'job_type' | 'cadence' | 'catchup_window_seconds' | 'state'>,
  ) {
    const attributes = searchAttributes.ready
      ? searchAttributesOf({ clientId: watch.client_id, jobType: watch.job_type })
      : undefined;
    const action: ScheduleOptionsStartWorkflowAction<typeof watchRunWorkflow> = {
      type: 'startWorkflow',
      workflowType: watchRunWorkflow,
      taskQueue,
      workflowId: watchRunWorkflowId(watch._id),
      args: [{ watch_id: watch._id, client_id: watch.client_id }],
      memo: { client_id: watch.client_id, watch_id: watch._id },
      ...(attributes ? { typedSearchAttributes: attributes } : {}),
    };
    return {
      spec: scheduleSpecOf(watch.cadence as Cadence),
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: watch.catchup_window_seconds * 1000 },
      state: { paused: watch.state === 'paused', note: `watch ${watch.state} (lead-service)` },
      ...(attributes ? { typedSearchAttributes: attributes } : {}),
    };
  }

  async function create(watch: Parameters<typeof optionsOf>[0]): Promise<void> {
    await withinDeadline(temporal, () =>
      temporal.schedule.create({
        scheduleId: watchScheduleId(watch._id),
        ...optionsOf(watch),
        memo: { client_id: watch.client_id, watch_id: watch._id },
      }),
    ).catch((err) => {
      throw refusedSpec(err);
    });
  }

  return {
    create,

    /** Makes the schedule what the record says (spec, run, policies, paused or not); a missing one is made again. */
    async sync(watch: Parameters<typeof optionsOf>[0]): Promise<void> {
      try {
        await withinDeadline(temporal, () => handle(watch._id).update(() => optionsOf(watch)));
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) throw refusedSpec(err);
        await create(watch);
      }
    },

    /**
     * The next run times Temporal computed for the schedule (none when it is missing), or null when Temporal did not
     * answer within the request's deadline. Describing a schedule is a query that its scheduler workflow answers, on
     * the server's own worker, which a loaded server may take seconds to do right after a create (Temporal's SDK
     * has such a describe timing out in its own CI, sdk-typescript#967; the likely cause of a create once answered
     * 503 in ours). The times only decorate an answer whose work is done by then (the watch created, changed or
     * resumed), so their absence must not turn that answer into a 503: a client told "unavailable" after its watch
     * was made would make a second one.
     */
    async nextRuns(watchId: string): Promise<Date[] | null> {
      try {
        return (await withinDeadline(temporal, () => handle(watchId).describe())).info.nextActionTimes;
      } catch (err) {
        if (err instanceof ScheduleNotFoundError) return [];
        if (unavailableEngine(err) === 'temporal') return null;
        throw err;
      }
    },

    /**
     * Starts a run now, or right after the one going (overlap BUFFER_ONE for this run: it never runs beside another,
     * and is not lost as SKIP would lose it). A schedule that went missing is made again from the record first.
     */
    async trigger(watch: Parameters<typeof optionsOf>[0]): Promise<void> {
      const trigger = () => withinDeadline(temporal, () => handle(watch._id).trigger(ScheduleOverlapPolicy.BUFFER_ONE));
      try {
        await trigger();
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
        await create(watch);
        await trigger();
      }
    },

    /** Deletes the schedule (one already gone is no error): no run starts after this. */
    async remove(watchId: string): Promise<void> {
      try {
        await withinDeadline(temporal, () => handle(watchId).delete());
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      }
    },
  };
}

export type WatchWorkflows = ReturnType<typeof createWatchWorkflows>;
