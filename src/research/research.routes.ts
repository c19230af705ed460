import type { OperationHandlers } from '../lib/http/operations';
import type { OutboundPolicy } from '../lib/outbound';
import { pageOf } from '../lib/pagination';
import { callerOf, tenantScope } from '../lib/tenancy';
import { runLinkFor } from '../jobs/temporal-link';
import { formatOf, sendResults, submissionOf } from '../jobs/job-http';
import type { ResearchService } from './research.service';

export function researchRoutes(deps: {
  research: ResearchService;
  outbound: OutboundPolicy;
  /** Where the run link of a job's status (super_admin only) points. */
  temporal: Parameters<typeof runLinkFor>[0];
}): OperationHandlers {
  const { research } = deps;
  return {
    async submitResearchJob(req, res) {
      res.json(await research.submit(submissionOf(req, deps.outbound, res), req.body));
    },
    async listResearchJobs(req, res) {
      res.json(await research.list(tenantScope(req), req.query.status, pageOf(req.query)));
    },
    async getResearchStatus(req, res) {
      const job = await research.get(tenantScope(req), req.params.research_id);
      res.json({ ...job, ...runLinkFor(deps.temporal, callerOf(req).role, job.research_id) });
    },
    async getResearchResults(req, res) {
      const { research_id } = req.params;
      await sendResults(
        res,
        await research.results(tenantScope(req), research_id, formatOf(req.query), pageOf(req.query)),
      );
    },
    async pauseResearchJob(req, res) {
      res.json(await research.pause(tenantScope(req), req.params.research_id));
    },
    async resumeResearchJob(req, res) {
      res.json(await research.resume(tenantScope(req), req.params.research_id));
    },
    async cancelResearchJob(req, res) {
      res.json(await research.cancel(tenantScope(req), req.params.research_id));
    },
  };
}
