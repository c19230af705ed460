import type { OperationHandlers } from '../lib/http/operations';
import { AppError } from '../lib/errors';
import type { SystemService } from './system.service';

export function systemRoutes(deps: { system: SystemService }): OperationHandlers {
  const { system } = deps;
  return {
    async getHealth(_req, res) {
      const health = await system.health();
      res.status(health.status === 'ok' ? 200 : 503).json(health);
    },
    getLiveness(_req, res) {
      res.json({ status: 'ok' });
    },
    async getReadiness(_req, res) {
      const health = await system.health();
      if (health.status !== 'ok') throw AppError.unavailable('not ready');
      res.json({ status: 'ok' });
    },
    getSystemInfo(_req, res) {
      res.json(system.info());
    },
    async getQueueStats(_req, res) {
      res.json(await system.queueStats());
    },
    async getCredentialHealth(_req, res) {
      res.json(await system.credentialHealth());
    },
    async decodeTemporalPayloads(req, res) {
      res.json(await system.codec('decode', req.body));
    },
    async encodeTemporalPayloads(req, res) {
      res.json(await system.codec('encode', req.body));
    },
  };
}
