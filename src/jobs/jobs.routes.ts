import type { OperationHandlers } from '../lib/http/operations';
import type { OutboundPolicy } from '../lib/outbound';
import { pageOf } from '../lib/pagination';
import { callerOf, requireTenant, tenantScope } from '../lib/tenancy';
import { formatOf, sendResults, submissionOf } from './job-http';
import type { JobsService } from './jobs.service';
import type { JobUsage } from './job-usage';
import { runLinkFor } from './temporal-link';

export function jobsRoutes(deps: {
  jobs: JobsService;
  outbound: OutboundPolicy;
  usage: JobUsage;
  /** Where the run link of a job's status (super_admin only) points. */
  temporal: Parameters<typeof runLinkFor>[0];
}): OperationHandlers {
  const { jobs } = deps;
  return {
    async getClientUsage(req, res) {
      res.json(await deps.usage.of(requireTenant(req)));
    },
    async submitMapsScrapeJob(req, res) {
      res.json(await jobs.submit(submissionOf(req, deps.outbound, res), req.body));
    },
    async listJobs(req, res) {
      const filter = { type: req.query.type_filter, status: req.query.status_filter };
      res.json(await jobs.list(tenantScope(req), filter, pageOf(req.query)));
    },
    async getJobStatus(req, res) {
      const job = await jobs.get(tenantScope(req), req.params.job_id);
      res.json({ ...job, ...runLinkFor(deps.temporal, callerOf(req).role, job.job_id) });
    },
    async getJobResults(req, res) {
      await sendResults(
        res,
        await jobs.results(tenantScope(req), req.params.job_id, formatOf(req.query), pageOf(req.query)),
      );
    },
    async cancelJob(req, res) {
      res.json(await jobs.cancel(tenantScope(req), req.params.job_id));
    },
  };
}
