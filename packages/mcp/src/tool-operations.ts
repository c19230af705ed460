/**
 * The API operations an agent uses, each an MCP tool named after it in snake case: its jobs (maps-scrape and
 * research: submit, status, results, pause, resume, cancel), the pin operations, the three provider relays and
 * its token's status. Their input schemas are generated from openapi.yaml (npm run generate:client).
 */
export const TOOL_OPERATIONS = [
  'submitMapsScrapeJob',
  'submitResearchJob',
  'getJobStatus',
  'getResearchStatus',
  'getJobResults',
  'getResearchResults',
  'pauseResearchJob',
  'resumeResearchJob',
  'cancelJob',
  'cancelResearchJob',
  'resolvePin',
  'searchPins',
  'previewPin',
  'confirmPin',
  'proxyMaps',
  'proxyParcelTracking',
  'proxyMessaging',
  'getAccessTokenStatus',
] as const;

/** Where a tool argument goes in the HTTP request. */
export interface ToolParameter {
  /** The argument's name in the tool's input (a header's name in snake case). */
  input: string;
  /** The parameter's name in the request. */
  name: string;
  in: 'path' | 'query' | 'header';
  /** A path parameter that may span several segments (x-multi-segment): its slashes are kept. */
  multiSegment?: boolean;
}

/** A generated tool: the operation it calls and its input schema (JSON Schema) taken from the operation's. */
export interface OperationTool {
  name: string;
  operationId: string;
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
  description: string;
  parameters: ToolParameter[];
  /** Whether the operation takes a JSON body: the arguments that are not parameters. */
  hasBody: boolean;
  inputSchema: { type: 'object'; [keyword: string]: unknown };
}
