import type { OperationHandlers } from '../lib/http/operations';
import { requireTenant } from '../lib/tenancy';
import type { IdapService } from './idap.service';
import { csv } from './refs';
import { renderMarkdown, renderYaml } from './render';

export function idapRoutes(deps: { idap: IdapService }): OperationHandlers {
  const { idap } = deps;
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
  };
}
