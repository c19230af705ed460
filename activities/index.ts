import { createContentActivities } from './content';
import type { createNotificationActivities } from './notifications';
import type { createJobActivities } from './jobs';
import type { createResearchActivities } from './research';
import type { createAccessRequestActivities } from './access-requests';
import type { createDigestActivities } from './digests';
import type { createPinActivities } from './pins';
import type { createIntegrationActivities } from './integrations';
import type { OutboundPolicy } from '../src/lib/outbound';

/** What activities need from the outside world; the worker passes real engines, tests may pass their own. */
export interface ActivityDeps {
  /** Which addresses caller-chosen URLs (webhooks, callbacks, deploy hooks) may reach: src/lib/outbound.ts. */
  outbound: OutboundPolicy;
  /** The secrets a client's deliveries (job webhooks, deploy hook) are signed with at this moment. */
  webhooks: WebhookSigning;
}

export interface WebhookSigning {
  signingSecrets(clientId: string): Promise<string[]>;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createContentActivities(deps),
  };
}

/** What workflows call: these and the activities of the area modules (src/<area>/<area>.module.ts). */
export type Activities = ReturnType<typeof createActivities> &
  ReturnType<typeof createPinActivities> &
  ReturnType<typeof createAccessRequestActivities> &
  ReturnType<typeof createIntegrationActivities> &
  ReturnType<typeof createNotificationActivities> &
  ReturnType<typeof createDigestActivities> &
  ReturnType<typeof createJobActivities> &
  ReturnType<typeof createResearchActivities>;
