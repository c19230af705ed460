import type { Request } from 'express';
import type { Services } from '../services';
import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { assertSubmittedUrl, outboundPolicy } from '../lib/outbound';
import { pageOf } from '../lib/pagination';
import { callerOf, requireTenant, tenantScope } from '../lib/tenancy';
import type { ResultsFormat } from './results';
import type { Submitter } from './jobs.service';

export function submitterOf(req: Request): Submitter {
  const caller = callerOf(req);
  return { clientId: requireTenant(req), isSuperAdmin: caller.role === 'super_admin', userId: caller.userId };
}

export const formatOf = (req: Request) => (req.query.format ?? 'json') as ResultsFormat;

export function jobsRoutes(s: Services): OperationHandlers {
  return {
    async submitMapsScrapeJob(req, res) {
      assertSubmittedUrl(req.body.webhook_url, 'webhook_url', outboundPolicy(s.config));
      res.json(await s.jobs.submit(submitterOf(req), req.body));
    },
    async listJobs(req, res) {
      const filter = {
        type: req.query.type_filter as string | undefined,
        status: req.query.status_filter as string | undefined,
      };
      res.json(await s.jobs.list(tenantScope(req), filter, pageOf(req)));
    },
    async getJobStatus(req, res) {
      res.json(await s.jobs.get(tenantScope(req), pathParam(req, 'job_id')));
    },
    async getJobResults(req, res) {
      await s.jobs.results(tenantScope(req), pathParam(req, 'job_id'), formatOf(req), pageOf(req), res);
    },
    async cancelJob(req, res) {
      res.json(await s.jobs.cancel(tenantScope(req), pathParam(req, 'job_id')));
    },
  };
}
