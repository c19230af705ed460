import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { assertSubmittedUrl, type OutboundPolicy } from '../lib/outbound';
import { pageOf } from '../lib/pagination';
import { tenantScope } from '../lib/tenancy';
import { formatOf, sendResults, submitterOf } from './job-http';
import type { JobsService } from './jobs.service';

export function jobsRoutes(deps: { jobs: JobsService; outbound: OutboundPolicy }): OperationHandlers {
  const { jobs } = deps;
  return {
    async submitMapsScrapeJob(req, res) {
      assertSubmittedUrl(req.body.webhook_url, 'webhook_url', deps.outbound);
      res.json(await jobs.submit(submitterOf(req), req.body));
    },
    async listJobs(req, res) {
      const filter = {
        type: req.query.type_filter as string | undefined,
        status: req.query.status_filter as string | undefined,
      };
      res.json(await jobs.list(tenantScope(req), filter, pageOf(req)));
    },
    async getJobStatus(req, res) {
      res.json(await jobs.get(tenantScope(req), pathParam(req, 'job_id')));
    },
    async getJobResults(req, res) {
      await sendResults(
        res,
        await jobs.results(tenantScope(req), pathParam(req, 'job_id'), formatOf(req), pageOf(req)),
      );
    },
    async cancelJob(req, res) {
      res.json(await jobs.cancel(tenantScope(req), pathParam(req, 'job_id')));
    },
  };
}
