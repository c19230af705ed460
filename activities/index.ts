import type { createContentActivities } from './content';
import type { createNotificationActivities } from './notifications';
import type { createJobActivities } from './jobs';
import type { createResearchActivities } from './research';
import type { createAccessRequestActivities } from './access-requests';
import type { createDigestActivities } from './digests';
import type { createPinActivities } from './pins';
import type { createIntegrationActivities } from './integrations';
import type { createRetentionActivities } from './retention';

/** The secrets a client's deliveries (job webhooks, deploy hook) are signed with at this moment. */
export interface WebhookSigning {
  signingSecrets(clientId: string): Promise<string[]>;
}

/** What workflows call: the activities of the area modules (src/<area>/<area>.module.ts), which the worker runs. */
export type Activities = ReturnType<typeof createPinActivities> &
  ReturnType<typeof createAccessRequestActivities> &
  ReturnType<typeof createIntegrationActivities> &
  ReturnType<typeof createNotificationActivities> &
  ReturnType<typeof createDigestActivities> &
  ReturnType<typeof createJobActivities> &
  ReturnType<typeof createResearchActivities> &
  ReturnType<typeof createContentActivities> &
  ReturnType<typeof createRetentionActivities>;

/**
 * Every activity the workflows call, from the area modules that own them: the worker registers exactly these.
 * (Modules without activities add nothing.)
 */
export function createActivities(modules: object): Activities {
  const areas = Object.values(modules) as { activities?: object }[];
  return Object.assign({}, ...areas.map((m) => m.activities ?? {})) as Activities;
}
