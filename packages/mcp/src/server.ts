import {
  asUnreachable,
  createLeadServiceClient,
  IDEMPOTENCY_HEADER,
  LeadServiceUnreachable,
  newIdempotencyKey,
  retryingFetch,
  type JobState,
} from '@lead-service/client';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import generatedTools from './generated/tools.json';
import { answerResult, documentResult, errorResult, requestOf, ToolInputError } from './operation-requests';
import { PACKAGE } from './package-info';
import { RESULT_PAGES, resultPageOf } from './result-pages';
import type { OperationTool } from './tool-operations';

const OPERATION_TOOLS = generatedTools as unknown as OperationTool[];
const outputOf = (name: string) => OPERATION_TOOLS.find((t) => t.name === name)!.outputSchema!;
/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** Not an operation: what HTTP alone cannot give an agent, a job followed to its end with progress notifications. */
const WAIT_FOR_JOB = {
  name: 'wait_for_job',
  title: 'Wait for a job to finish',
  description:
    'Waits until a job (maps-scrape or research) is completed, failed or cancelled and returns its final status. ' +
    "The job's events on the service's event stream are reported as progress notifications (progress = units done, " +
    'total = units planned) when the call carries a progressToken.',
  inputSchema: {
    type: 'object',
    required: ['job_id'],
    properties: {
      job_id: {
        type: 'string',
        pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
        description: 'A job_id or a research_id. A UUID.',
      },
      timeout_seconds: {
        type: 'integer',
        minimum: 1,
        maximum: 3600,
        description: 'How long to wait before answering an error. Default: `600`.',
      },
    },
    additionalProperties: false,
  },
  // The job's kind and its status, as get_job_status or get_research_status answers it.
  outputSchema: {
    type: 'object',
    required: ['kind', 'job'],
    properties: {
      kind: { type: 'string', enum: ['maps-scrape', 'research'] },
      job: { anyOf: [outputOf('get_job_status'), outputOf('get_research_status')] },
    },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
} satisfies Tool;

export interface LeadServiceMcpOptions {
  /** The service's origin, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The agent's access token (lpat_…): every tool call acts with it. */
  token: string;
}

/**
 * An MCP server whose tools are the agent's operations of the lead service (input and output schemas generated from
 * openapi.yaml) plus wait_for_job, every call made with the agent's token, and whose resource templates read a
 * job's results a page at a time. An error answer of the service is a tool result with isError, carrying its status
 * and {detail}, so the model can read and correct it.
 */
export function createLeadServiceMcpServer(options: LeadServiceMcpOptions): Server {
  const lead = createLeadServiceClient({ baseUrl: options.baseUrl, token: options.token });
  const server = new Server(
    { name: 'lead-service', title: 'Lead service', version: PACKAGE.version },
    { capabilities: { tools: {}, resources: {} } },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      ...OPERATION_TOOLS.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema,
        ...(outputSchema ? { outputSchema } : {}),
        annotations: { title, ...annotations },
      })),
      WAIT_FOR_JOB,
    ],
  }));

  // A tool call of an operation that takes an Idempotency-Key sends a new one; a network error is retried with it.
  const retrying = retryingFetch();
  const send = async (tool: OperationTool, args: Record<string, unknown>) => {
    const request = requestOf(tool, args);
    const response = await retrying(
      new Request(new URL(request.path, options.baseUrl), {
        method: tool.method.toUpperCase(),
        headers: {
          Authorization: `Bearer ${options.token}`,
          ...request.headers,
          ...(tool.idempotencyKey ? { [IDEMPOTENCY_HEADER]: newIdempotencyKey() } : {}),
          ...(request.body ? { 'Content-Type': 'application/json' } : {}),
        },
        body: request.body ? JSON.stringify(request.body) : undefined,
      }),
    );
    return { response, text: await response.text() };
  };

  const callOperation = async (tool: OperationTool, args: Record<string, unknown>) => {
    try {
      const { response, text } = await send(tool, args);
      return answerResult(response, text);
    } catch (err) {
      if (err instanceof ToolInputError) return errorResult({ detail: err.message });
      // Named as its cause (refused, DNS, TLS, timeout) where fetch's error carries one.
      const cause = asUnreachable(err, options.baseUrl);
      const why = cause instanceof LeadServiceUnreachable ? cause.explanation : (err as Error).message;
      return errorResult({ detail: `the service at ${options.baseUrl} could not be reached: ${why}` });
    }
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
        return documentResult(final);
      } catch (err) {
        return errorResult({ detail: err instanceof Error ? err.message : String(err) });
      }
    }
    const tool = OPERATION_TOOLS.find((t) => t.name === request.params.name);
    if (!tool) return errorResult({ detail: `no tool ${request.params.name}` });
    return callOperation(tool, args);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: RESULT_PAGES.map((page) => page.template),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const page = resultPageOf(uri);
    if (!page) throw new McpError(RESOURCE_NOT_FOUND, `no resource ${uri}`, { uri });
    let answer: Awaited<ReturnType<typeof send>>;
    try {
      answer = await send(
        OPERATION_TOOLS.find((t) => t.name === page.tool)!,
        page.args,
      );
    } catch (err) {
      throw new McpError(ErrorCode.InvalidParams, (err as Error).message, { uri });
    }
    const { response, text } = answer;
    if (response.status === 404) throw new McpError(RESOURCE_NOT_FOUND, `${uri}: ${text}`, { uri });
    if (!response.ok) throw new McpError(ErrorCode.InvalidParams, `${uri}: ${response.status} ${text}`, { uri });
    return { contents: [{ uri, mimeType: 'application/json', text }] };
  });
  return server;
}
