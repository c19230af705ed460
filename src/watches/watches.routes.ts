import type { OperationHandlers } from '../lib/http/operations';
import { pageOf } from '../lib/pagination';
import { requireTenant, tenantScope } from '../lib/tenancy';
import { submissionOf, submitterOf } from '../jobs/job-http';
import type { OutboundPolicy } from '../lib/outbound';
import type { WatchesService } from './watches.service';

export function watchesRoutes(deps: { watches: WatchesService; outbound: OutboundPolicy }): OperationHandlers {
  const { watches } = deps;
  return {
    async createWatch(req, res) {
      res.status(201).json(await watches.create(submissionOf(req, deps.outbound), req.body));
    },
    async listWatches(req, res) {
      res.json(await watches.list(tenantScope(req), req.query.state, pageOf(req.query)));
    },
    async getWatch(req, res) {
      res.json(await watches.get(tenantScope(req), req.params.watch_id));
    },
    async updateWatch(req, res) {
      res.json(await watches.update(requireTenant(req), req.params.watch_id, req.body));
    },
    async deleteWatch(req, res) {
      res.json(await watches.remove(requireTenant(req), req.params.watch_id));
    },
    async pauseWatch(req, res) {
      res.json(await watches.pause(requireTenant(req), req.params.watch_id));
    },
    async resumeWatch(req, res) {
      res.json(await watches.resume(submitterOf(req), req.params.watch_id));
    },
    async triggerWatch(req, res) {
      res.status(202).json(await watches.trigger(requireTenant(req), req.params.watch_id));
    },
    async listWatchRuns(req, res) {
      res.json(await watches.runs(tenantScope(req), req.params.watch_id, pageOf(req.query)));
    },
  };
}
