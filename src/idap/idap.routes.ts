import { recordInstead } from '../activity/record-writes';
import { actorOf, type ActivityRecorder } from '../activity/recorder';
import { AppError } from '../lib/errors';
import { rawResponse, type AnyRequest, type OperationHandlers } from '../lib/http/operations';
import { requireTenant } from '../lib/tenancy';
import { sendDownload } from './sync/export';
import { flagEvents, FLAGS_CONFLICT, MAX_FLAGS, TOO_MANY_FLAGS, type FlagsOutcome } from './resources/flags';
import type { IdapService } from './idap.service';
import { idapRef } from './resources/resource.model';
import { RESOURCE_NOT_FOUND, csv } from './resources/refs';
import { renderMarkdown, renderYaml } from './resources/render';

export function idapRoutes(deps: { idap: IdapService; recorder: ActivityRecorder }): OperationHandlers {
  const { idap, recorder } = deps;

  /** Each resource whose flags changed, recorded as its own event of the caller's (the request is not, besides). */
  const recordFlags = (
    req: AnyRequest,
    res: { locals: Record<string, unknown> },
    clientId: string,
    action: string,
    outcome: FlagsOutcome,
  ) => {
    const actor = actorOf(req.caller!);
    return recordInstead(recorder, res, actor ? flagEvents(clientId, actor, action, outcome.changed) : []);
  };

  return {
    async batchGetResources(req, res) {
      res.json(await idap.batch(requireTenant(req), req.body));
    },

    async searchResources(req, res) {
      const query = req.query;
      const result = await idap.search(requireTenant(req), req.params.resource_type, query);
      if (query.format === 'yaml') return void res.type('application/yaml').send(renderYaml(result));
      if (query.format === 'md') return void res.type('text/markdown').send(renderMarkdown(result, csv(query.fields)));
      res.json(result);
    },

    async listResources(req, res) {
      const query = req.query;
      if (query.format === 'csv' || query.format === 'jsonl') {
        const download = idap.download(requireTenant(req), req.params.resource_type, query, query.format);
        return sendDownload(rawResponse<'listResources'>(res), download);
      }
      const page = await idap.list(requireTenant(req), req.params.resource_type, query);
      if (query.format === 'yaml') return void res.type('application/yaml').send(renderYaml(page));
      if (query.format === 'md')
        return void res.type('text/markdown').send(renderMarkdown(page, csv(query.fields), 'list'));
      res.json(page);
    },

    async updateResourceFlags(req, res) {
      const clientId = requireTenant(req);
      // A UUID names the same resource in either case; ids are stored in lower case.
      const ref = idapRef(req.params.resource_type, req.params.resource_id.toLowerCase());
      const outcome = await idap.changeFlags(clientId, [ref], req.body);
      const resource = outcome.results[ref];
      if (!resource) {
        const error = outcome.errors[ref];
        if (error === FLAGS_CONFLICT) throw AppError.conflict(FLAGS_CONFLICT);
        if (error === TOO_MANY_FLAGS) {
          throw AppError.invalid(TOO_MANY_FLAGS, [
            { location: 'body', field: 'add', message: `a resource carries at most ${MAX_FLAGS} flags` },
          ]);
        }
        throw AppError.notFound(RESOURCE_NOT_FOUND);
      }
      await recordFlags(req, res, clientId, 'updateResourceFlags', outcome);
      res.json(resource);
    },

    async batchUpdateFlags(req, res) {
      const clientId = requireTenant(req);
      const { refs, ...change } = req.body;
      const outcome = await idap.changeFlags(clientId, refs, change);
      await recordFlags(req, res, clientId, 'batchUpdateFlags', outcome);
      res.json({ results: outcome.results, errors: outcome.errors });
    },
  };
}
