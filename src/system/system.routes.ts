import type { Services } from '../services';
import type { OperationHandlers } from '../lib/http/operations';
import { AppError } from '../lib/errors';
import { checkHealth } from './health';
import { queueStats } from './queue-stats';
import { systemInfo } from './system-info';
import { codecJson } from '../lib/engines/payload-codec';

export function systemRoutes(s: Services): OperationHandlers {
  return {
    async getHealth(_req, res) {
      const health = await checkHealth(s.engines, s.version);
      res.status(health.status === 'ok' ? 200 : 503).json(health);
    },
    getLiveness(_req, res) {
      res.json({ status: 'ok' });
    },
    async getReadiness(_req, res) {
      const health = await checkHealth(s.engines, s.version);
      if (health.status !== 'ok') throw AppError.unavailable('not ready');
      res.json({ status: 'ok' });
    },
    getSystemInfo(_req, res) {
      res.json(systemInfo(s));
    },
    async getQueueStats(_req, res) {
      res.json(await queueStats(s.engines.temporal, [s.config.TEMPORAL_TASK_QUEUE]));
    },
    async getCredentialHealth(_req, res) {
      res.json(await s.modules.clients.service.credentialHealth());
    },
    async decodeTemporalPayloads(req, res) {
      res.json(await codecJson(s.engines.payloadCodec, 'decode', req.body));
    },
    async encodeTemporalPayloads(req, res) {
      res.json(await codecJson(s.engines.payloadCodec, 'encode', req.body));
    },
  };
}
