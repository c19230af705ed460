import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../lib/errors';
import { ALREADY_DECIDED, EXPIRED } from '../../workflows/access-request-api';

/**
 * The HTTP answer for a decision the workflow refused: 409 when another decision won (its message
 * names which), 410 after the deadline. A workflow that has already ended is judged by the state it left.
 */
export async function failureOfUpdate(err: unknown, currentState: () => Promise<string>): Promise<unknown> {
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    if (err.cause.type === EXPIRED) return new AppError(410, err.cause.message);
    if (err.cause.type === ALREADY_DECIDED) return AppError.conflict(err.cause.message);
  }
  const ended =
    err instanceof WorkflowNotFoundError ||
    /already completed|workflow execution already/i.test(String((err as Error)?.message));
  if (ended) {
    const state = await currentState();
    if (state === 'expired') return new AppError(410, 'Access request has expired');
    if (state !== 'pending') return AppError.conflict(`Access request already ${state}`);
  }
  return err;
}
