import type { Services } from '../services';
import { pathParam, type OperationHandlers } from '../lib/http/operations';
import { assertSubmittedUrl, outboundPolicy } from '../lib/outbound';
import { pageOf } from '../lib/pagination';
import { tenantScope } from '../lib/tenancy';
import { formatOf, submitterOf } from '../jobs/jobs.routes';

export function researchRoutes(s: Services): OperationHandlers {
  const id = (req: Parameters<OperationHandlers[string]>[0]) => pathParam(req, 'research_id');
  return {
    async submitResearchJob(req, res) {
      assertSubmittedUrl(req.body.webhook_url, 'webhook_url', outboundPolicy(s.config));
      res.json(await s.research.submit(submitterOf(req), req.body));
    },
    async listResearchJobs(req, res) {
      res.json(await s.research.list(tenantScope(req), req.query.status as string | undefined, pageOf(req)));
    },
    async getResearchStatus(req, res) {
      res.json(await s.research.get(tenantScope(req), id(req)));
    },
    async getResearchResults(req, res) {
      await s.research.results(tenantScope(req), id(req), formatOf(req), pageOf(req), res);
    },
    async pauseResearchJob(req, res) {
      res.json(await s.research.pause(tenantScope(req), id(req)));
    },
    async resumeResearchJob(req, res) {
      res.json(await s.research.resume(tenantScope(req), id(req)));
    },
    async cancelResearchJob(req, res) {
      res.json(await s.research.cancel(tenantScope(req), id(req)));
    },
  };
}
