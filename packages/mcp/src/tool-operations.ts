import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a host may assume of a tool (MCP tool annotations). Every hint is set explicitly: MCP's defaults are the
 * cautious ones (a tool with no annotations may be destructive and reaches an open world), so a hint left out would
 * make a read look like a risk.
 */
const READS: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
/** Starts work inside the service (a job); a second call starts a second one. */
const STARTS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** Changes a job's state; calling it again changes nothing more. */
const CONTROLS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Ends a job for good: its unfinished work is dropped. */
const CANCELS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
/**
 * Changes resources' flags (qualifies, rejects, tags): not only additive (a flag may be removed, and adding
 * `rejected` removes `qualified` and takes the lead out of search), so destructive in MCP's sense, though a call
 * can be undone by its opposite; calling it again changes nothing more.
 */
const FLAGS: ToolAnnotations = CANCELS;

/** Sets up recurring work inside the service (a watch): a second call sets up a second one. */
const CREATES: ToolAnnotations = STARTS;
/**
 * Replaces settings of a watch with the ones given: what it replaced is gone (destructive, as a cancel is); the same
 * call again changes nothing.
 */
const REPLACES: ToolAnnotations = CANCELS;
/** Deletes a watch and its runs' records for good; calling it again deletes nothing more (404). */
const DELETES: ToolAnnotations = CANCELS;

/** How one operation of openapi.yaml becomes a tool. */
export interface ToolDefinition {
  annotations: ToolAnnotations;
  /** Query parameters the tool does not offer. */
  omit?: string[];
}

/**
 * The API operations an agent uses, each an MCP tool named after it in snake case: its jobs (maps-scrape and
 * research: submit, status, results, pause, resume, cancel), the leads they found (list and sync, flags), its
 * watches (jobs run on a cadence, and their runs), the pin operations, the three provider relays and its token's
 * status. Their input and output schemas are generated from openapi.yaml (npm run generate:client); what a host may
 * assume of each (its annotations) is said here.
 */
export const TOOL_OPERATIONS: Record<string, ToolDefinition> = {
  submitMapsScrapeJob: { annotations: STARTS },
  submitResearchJob: { annotations: STARTS },
  getJobStatus: { annotations: READS },
  getResearchStatus: { annotations: READS },
  // A tool answers JSON a page at a time (its output schema); the CSV and JSON Lines downloads are not for a model.
  getJobResults: { annotations: READS, omit: ['format'] },
  getResearchResults: { annotations: READS, omit: ['format'] },
  pauseResearchJob: { annotations: CONTROLS },
  resumeResearchJob: { annotations: CONTROLS },
  cancelJob: { annotations: CANCELS },
  cancelResearchJob: { annotations: CANCELS },
  resolvePin: { annotations: READS },
  // A search, sent as a POST for its body: it reads.
  searchPins: { annotations: READS },
  // Tells whether a name is free; nothing is reserved.
  previewPin: { annotations: READS },
  // Holds the name for a day and sends a person an SMS or e-mail: it reaches outside the service, and each call
  // sends another message.
  confirmPin: {
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  // The relays call a provider with the brand's key and spend its money; the maps relay only reads (GET)...
  proxyMaps: {
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  // ...the others may DELETE at the provider (a tracking, a message).
  proxyParcelTracking: {
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  proxyMessaging: {
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
  getAccessTokenStatus: { annotations: READS },
  // The lead data the jobs found, a page at a time (JSON: the YAML and Markdown forms are for people), and its flags.
  listResources: { annotations: READS, omit: ['format'] },
  updateResourceFlags: { annotations: FLAGS },
  batchUpdateFlags: { annotations: FLAGS },
  // Watches: a job run on a cadence by the service (each run spends what a job spends).
  createWatch: { annotations: CREATES },
  listWatches: { annotations: READS },
  getWatch: { annotations: READS },
  updateWatch: { annotations: REPLACES },
  pauseWatch: { annotations: CONTROLS },
  resumeWatch: { annotations: CONTROLS },
  // Starts a run (another job); while one is going, one more waits for it.
  triggerWatch: { annotations: STARTS },
  deleteWatch: { annotations: DELETES },
  listWatchRuns: { annotations: READS },
};

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

type JsonSchemaObject = { type: 'object'; [keyword: string]: unknown };

/**
 * A generated tool: the operation it calls, its title and annotations, its input schema (JSON Schema) taken from
 * the operation's parameters and body, and its output schema from the operation's JSON answer.
 */
export interface OperationTool {
  name: string;
  title: string;
  operationId: string;
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
  description: string;
  annotations: ToolAnnotations;
  parameters: ToolParameter[];
  /** Whether the operation takes a JSON body: the arguments that are not parameters. */
  hasBody: boolean;
  /** Whether the contract declares Idempotency-Key on it: each call sends a new key, kept across its retries. */
  idempotencyKey: boolean;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
}
