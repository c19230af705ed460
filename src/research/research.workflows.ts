import type { Client } from '@temporalio/client';
import { withinDeadline } from '../lib/engines/temporal';
import type { researchWorkflow } from '../../workflows/research';
import { jobWorkflowId, pauseSignal, resumeSignal } from '../../workflows/jobs-signals';

/**
 * Pause and resume of a research job's run, by the workflow's own signal definitions. Each carries the job's
 * control sequence number, so an older signal never undoes a newer one. (Start and cancel are every job's:
 * jobs.workflows.ts.)
 */
export function createResearchWorkflows(temporal: Client) {
  const handle = (jobId: string) => temporal.workflow.getHandle<typeof researchWorkflow>(jobWorkflowId(jobId));
  return {
    pause: (jobId: string, seq: number) => withinDeadline(temporal, () => handle(jobId).signal(pauseSignal, { seq })),
    resume: (jobId: string, seq: number) => withinDeadline(temporal, () => handle(jobId).signal(resumeSignal, { seq })),
  };
}

export type ResearchWorkflows = ReturnType<typeof createResearchWorkflows>;
