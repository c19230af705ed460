import type { ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';

/**
 * A job's results as MCP resources, a page each: an agent (or the person at the host) reads a large result set page
 * by page without a tool call per page in its context. Each template names the tool whose operation answers it.
 */
export const RESULT_PAGES = [
  {
    tool: 'get_job_results',
    idInput: 'job_id',
    template: {
      uriTemplate: 'lead-service://jobs/{job_id}/results{?page,page_size}',
      name: 'job-results',
      title: "A maps-scrape job's results, a page at a time",
      description:
        'One page of the businesses a maps-scrape job collected (JSON: total, page, page_size, results). page is ' +
        '1-based (default 1), page_size at most 100 (default 20).',
      mimeType: 'application/json',
    },
  },
  {
    tool: 'get_research_results',
    idInput: 'research_id',
    template: {
      uriTemplate: 'lead-service://research/{research_id}/results{?page,page_size}',
      name: 'research-results',
      title: "A research job's results, a page at a time",
      description:
        'One page of the companies a research job researched (JSON: total, page, page_size, results). page is ' +
        '1-based (default 1), page_size at most 100 (default 20).',
      mimeType: 'application/json',
    },
  },
] as const satisfies readonly { tool: string; idInput: string; template: ResourceTemplate }[];

/** The tool and its arguments a resource URI of RESULT_PAGES stands for, or undefined when it is none of them. */
export function resultPageOf(uri: string): { tool: string; args: Record<string, unknown> } | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  const [, id, rest] = url.pathname.split('/');
  const page = RESULT_PAGES.find((p) => p.template.uriTemplate.startsWith(`${url.protocol}//${url.host}/{`));
  if (!page || !id || rest !== 'results' || url.pathname.split('/').length !== 3) return undefined;
  let decodedId: string;
  try {
    decodedId = decodeURIComponent(id);
  } catch {
    return undefined;
  }
  const args: Record<string, unknown> = { [page.idInput]: decodedId };
  for (const name of ['page', 'page_size']) {
    const value = url.searchParams.get(name);
    if (value !== null) args[name] = Number(value);
  }
  return { tool: page.tool, args };
}
