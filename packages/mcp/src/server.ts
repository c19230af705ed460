import { createLeadServiceClient, type JobState } from '@lead-service/client';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import generatedTools from './generated/tools.json';
import type { OperationTool } from './tool-operations';

const OPERATION_TOOLS = generatedTools as OperationTool[];

/** Not an operation: what HTTP alone cannot give an agent, a job followed to its end with progress notifications. */
const WAIT_FOR_JOB = {
  name: 'wait_for_job',
  description:
    'Waits until a job (maps-scrape or research) is completed, failed or cancelled and returns its final status. ' +
    "The job's events on the service's event stream are reported as progress notifications (progress = units done, " +
    'total = units planned) when the call carries a progressToken.',
  inputSchema: {
    type: 'object' as const,
    required: ['job_id'],
    properties: {
      job_id: { type: 'string', format: 'uuid', description: 'A job_id or a research_id.' },
      timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 600 },
    },
    additionalProperties: false,
  },
};

export interface LeadServiceMcpOptions {
  /** The service's origin, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The agent's access token (lpat_…): every tool call acts with it. */
  token: string;
}

const textResult = (document: unknown, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: typeof document === 'string' ? document : JSON.stringify(document, null, 2) }],
  ...(document && typeof document === 'object' && !Array.isArray(document)
    ? { structuredContent: document as Record<string, unknown> }
    : {}),
  ...(isError ? { isError } : {}),
});

/** The HTTP request a tool's arguments make: parameters by where the contract puts them, the rest as the body. */
function requestOf(tool: OperationTool, args: Record<string, unknown>) {
  const rest = { ...args };
  let apiPath = tool.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of tool.parameters) {
    const value = rest[parameter.input];
    delete rest[parameter.input];
    if (value === undefined) continue;
    if (parameter.in === 'path') {
      const segments = parameter.multiSegment ? String(value).split('/') : [String(value)];
      apiPath = apiPath.replace(`{${parameter.name}}`, segments.map(encodeURIComponent).join('/'));
    } else if (parameter.in === 'query') query.set(parameter.name, String(value));
    else headers[parameter.name] = String(value);
  }
  const search = query.size ? `?${query}` : '';
  return { path: apiPath + search, headers, body: tool.hasBody ? rest : undefined };
}

/**
 * An MCP server whose tools are the agent's operations of the lead service (input schemas generated from
 * openapi.yaml) plus wait_for_job, every call made with the agent's token. An error answer of the service is a tool
 * result with isError, carrying its status and {detail}, so the model can read and correct it.
 */
export function createLeadServiceMcpServer(options: LeadServiceMcpOptions): Server {
  const lead = createLeadServiceClient({ baseUrl: options.baseUrl, token: options.token });
  const server = new Server({ name: 'lead-service', version: '0.1.0' }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      ...OPERATION_TOOLS.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
      WAIT_FOR_JOB,
    ],
  }));

  const callOperation = async (tool: OperationTool, args: Record<string, unknown>) => {
    const request = requestOf(tool, args);
    const response = await fetch(new URL(request.path, options.baseUrl), {
      method: tool.method.toUpperCase(),
      headers: {
        Authorization: `Bearer ${options.token}`,
        ...request.headers,
        ...(request.body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: request.body ? JSON.stringify(request.body) : undefined,
    });
    const text = await response.text();
    const isJson = response.headers.get('content-type')?.includes('json');
    const document = isJson && text ? JSON.parse(text) : text;
    return response.ok ? textResult(document) : textResult({ status: response.status, ...document }, true);
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (request.params.name === WAIT_FOR_JOB.name) {
      const progressToken = request.params._meta?.progressToken;
      let reported = -1;
      const report = async (state: JobState, eventName?: string) => {
        const { done, total } = state.job.progress;
        // A progress notification's progress must grow: a step that leaves `done` where it was is not sent.
        if (progressToken === undefined || done <= reported) return;
        reported = done;
        const message = `${state.job.status}${eventName ? ` (${eventName})` : ''}`;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: done, ...(total ? { total } : {}), message },
        });
      };
      // Notifications go out in order and all before the result: one sent after it would be dropped by the client.
      let sent: Promise<void> = Promise.resolve();
      try {
        const final = await lead.waitForJob(String(args.job_id), {
          timeoutMs: Number(args.timeout_seconds ?? 600) * 1000,
          signal: extra.signal,
          onProgress: (state, frame) => void (sent = sent.then(() => report(state, frame?.event))),
        });
        await sent;
        await report(final);
        return textResult(final);
      } catch (err) {
        return textResult({ detail: err instanceof Error ? err.message : String(err) }, true);
      }
    }
    const tool = OPERATION_TOOLS.find((t) => t.name === request.params.name);
    if (!tool) return textResult({ detail: `no tool ${request.params.name}` }, true);
    return callOperation(tool, args);
  });
  return server;
}
