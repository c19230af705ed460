import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OperationTool } from './tool-operations';

/** Tool input the server refuses before calling the service: the result says why, for the model to correct. */
export class ToolInputError extends Error {}

/** `%XX` decoded byte by byte (never throws on a malformed sequence); enough for the ASCII `.`, `/` and `\`. */
const decodePercent = (text: string) =>
  text.replace(/%([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * Whether a path argument has a `.` or `..` segment, as is or percent-encoded (also twice), or after `\`. fetch's URL
 * parser resolves `.` and `..`, so `../../…` in a path argument would reach an operation outside the tool list, with
 * the agent's token; the encoded forms are refused too (the service's relays refuse them all the same, 422).
 */
export function hasDotSegment(value: string): boolean {
  let decoded = value;
  for (let round = 0; round < 3; round++) {
    const next = decodePercent(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  return decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..');
}

/** The HTTP request a tool's arguments make: parameters by where the contract puts them, the rest as the body. */
export function requestOf(tool: OperationTool, args: Record<string, unknown>) {
  const rest = { ...args };
  let apiPath = tool.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of tool.parameters) {
    const value = rest[parameter.input];
    delete rest[parameter.input];
    if (value === undefined) continue;
    if (parameter.in === 'path') {
      if (hasDotSegment(String(value)))
        throw new ToolInputError(`${parameter.input} must not have a \`.\` or \`..\` segment (percent-encoded or not)`);
      const segments = parameter.multiSegment ? String(value).split('/') : [String(value)];
      apiPath = apiPath.replace(`{${parameter.name}}`, segments.map(encodeURIComponent).join('/'));
    } else if (parameter.in === 'query') query.set(parameter.name, String(value));
    else headers[parameter.name] = String(value);
  }
  const search = query.size ? `?${query}` : '';
  return { path: apiPath + search, headers, body: tool.hasBody ? rest : undefined };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON object as a tool result: the text a model reads, and the same as structuredContent (the output schema's). */
export const documentResult = (document: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(document, null, 2) }],
  structuredContent: document,
});

/**
 * A refusal as a tool error the model can act on: its JSON as text only. A structuredContent must match the tool's
 * output schema (what the tool answers when it works), so an error carries none.
 */
export const errorResult = (error: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(error, null, 2) }],
  isError: true,
});

/**
 * The service's answer as a tool result: a JSON object as it is (an error with its status beside its `{detail}`);
 * an error that is not a JSON object (a proxy's HTML page, a plain-text 502) as text, whole.
 */
export function answerResult(response: Response, text: string): CallToolResult {
  let document: unknown = text;
  if (response.headers.get('content-type')?.includes('json') && text)
    try {
      document = JSON.parse(text);
    } catch {
      // not JSON after all: the text is what the model gets
    }
  if (isObject(document))
    return response.ok ? documentResult(document) : errorResult({ status: response.status, ...document });
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return {
    content: [{ type: 'text', text: response.ok ? text : `${status}${text ? `: ${text}` : ''}` }],
    ...(response.ok ? {} : { isError: true }),
  };
}
