import type { OperationHandlers } from '../lib/http/operations';
import { AppError } from '../lib/errors';
import { callerOf, tenantScope } from '../lib/tenancy';
import type { SystemService } from './system.service';

export function systemRoutes(deps: { system: SystemService }): OperationHandlers {
  const { system } = deps;
  return {
    async getHealth(req, res) {
      const health = await system.health(callerOf(req).role === 'super_admin');
      res.status(health.status === 'ok' ? 200 : 503).json(health);
    },
    getLiveness(_req, res) {
      res.json({ status: 'ok' });
    },
    async getReadiness(_req, res) {
      const health = await system.health(false);
      if (health.status !== 'ok') throw AppError.unavailable('not ready');
      res.json({ status: 'ok' });
    },
    getSystemInfo(_req, res) {
      res.json(system.info());
    },
    async getQueueStats(req, res) {
      // A super_admin sees the platform; every other caller their own client's jobs, never other tenants' runs.
      res.json(await system.queueStats(callerOf(req).role === 'super_admin' ? null : tenantScope(req)));
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
