import type { Infra } from '../infra';
import type { JsonAnswer } from '../lib/contract-types';

const startedAt = Date.now();

export type SystemInfoSources = Pick<Infra, 'config' | 'engines' | 'version' | 'channels' | 'temporalUiUrl'>;

/** Configuration and version facts an operator needs; never a secret or a credential-bearing URL. */
export function systemInfo(s: SystemInfoSources): JsonAnswer<'getSystemInfo', 200> {
  const { config } = s;
  return {
    name: 'lead-service',
    version: s.version,
    build: { commit: process.env.BUILD_COMMIT ?? null, node_version: process.version },
    environment: config.NODE_ENV,
    uptime_seconds: Math.round((Date.now() - startedAt) / 1000),
    api_base_path: '/api/v1',
    drivers: {
      documents: s.engines.kinds.documents,
      workflows: s.engines.kinds.workflows,
      cache: s.engines.kinds.cache,
      media: config.S3_BUCKET ? 's3' : 'local',
      email: s.channels.email.name === 'outbox' ? 'outbox' : 'sendgrid',
      sms: s.channels.sms.name === 'outbox' ? 'outbox' : 'twilio',
      pin_search: config.MEILISEARCH_URL ? 'meilisearch' : 'builtin',
      providers: 'sandbox',
    },
    temporal: { namespace: config.TEMPORAL_NAMESPACE, task_queue: config.TEMPORAL_TASK_QUEUE, ui_url: s.temporalUiUrl },
    limits: { json_body_bytes: config.JSON_BODY_LIMIT_BYTES },
  };
}
