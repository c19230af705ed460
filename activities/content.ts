import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type { DeployHookCall } from '../src/content/deploy-hook-call';
import { deliverOutbound, type OutboundPolicy } from '../src/lib/outbound';
import { webhookHeaders } from '../src/lib/standard-webhooks';
import type { WebhookSigning } from './index';

export function createContentActivities(deps: { outbound: OutboundPolicy; webhooks: WebhookSigning }) {
  return {
    /**
     * POSTs the published record's type, id and slug to the deploy hook, through the outbound policy, signed
     * like the client's job webhooks (Standard Webhooks, `webhook-id` = the Idempotency-Key): a 5xx, 408, 425,
     * 429, timeout or network error is retried; a refused address, a redirect or another 4xx is not.
     */
    async callDeployHook(call: DeployHookCall): Promise<{ status: number }> {
      const body = JSON.stringify(call.payload);
      const secrets = await deps.webhooks.signingSecrets(call.payload.client_id);
      const status = await deliverOutbound(
        {
          url: call.url,
          what: 'deploy hook',
          body,
          signal: Context.current().cancellationSignal,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'lead-service-deploy-hook/1',
            'idempotency-key': call.delivery_id,
            ...webhookHeaders(secrets, call.delivery_id, body),
          },
        },
        deps.outbound,
      );
      if (status < 200 || status >= 300) {
        throw ApplicationFailure.nonRetryable(`deploy hook answered ${status}`, 'DeployHookRejected');
      }
      log.info('deploy hook called', { delivery_id: call.delivery_id, status });
      return { status };
    },
  };
}
