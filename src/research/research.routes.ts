import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { assertSubmittedUrl, type OutboundPolicy } from '../lib/outbound';
import { pageOf } from '../lib/pagination';
import { tenantScope } from '../lib/tenancy';
import { formatOf, sendResults, submitterOf } from '../jobs/job-http';
import type { ResearchService } from './research.service';

export function researchRoutes(deps: { research: ResearchService; outbound: OutboundPolicy }): OperationHandlers {
  const { research } = deps;
  const id = (req: Parameters<OperationHandlers[string]>[0]) => pathParam(req, 'research_id');
  return {
    async submitResearchJob(req, res) {
      assertSubmittedUrl(req.body.webhook_url, 'webhook_url', deps.outbound);
      res.json(await research.submit(submitterOf(req), req.body));
    },
    async listResearchJobs(req, res) {
      res.json(await research.list(tenantScope(req), req.query.status as string | undefined, pageOf(req)));
    },
    async getResearchStatus(req, res) {
      res.json(await research.get(tenantScope(req), id(req)));
    },
    async getResearchResults(req, res) {
      await sendResults(res, await research.results(tenantScope(req), id(req), formatOf(req), pageOf(req)));
    },
    async pauseResearchJob(req, res) {
      res.json(await research.pause(tenantScope(req), id(req)));
    },
    async resumeResearchJob(req, res) {
      res.json(await research.resume(tenantScope(req), id(req)));
    },
    async cancelResearchJob(req, res) {
      res.json(await research.cancel(tenantScope(req), id(req)));
    },
  };
}
