// Every workflow the worker registers. Deterministic code only: no Node built-ins, no I/O (lint enforces it).
export { deliverMessageWorkflow } from './notifications';
export { contentDeployHookWorkflow } from './content';
export { mapsScrapeWorkflow, jobWebhookWorkflow, jobIndexWorkflow } from './jobs';
export { researchWorkflow } from './research';
export { accessRequestWorkflow } from './access-requests';
export { digestTickWorkflow } from './digests';
export { pinReservationWorkflow, pinCreatedCallbackWorkflow } from './pin-reservation';
export { integrationBillingSyncWorkflow } from './integration-billing';
export { retentionPurgeWorkflow } from './retention';
export { idapRerankWorkflow } from './idap';
export { watchRunWorkflow } from './watches';
