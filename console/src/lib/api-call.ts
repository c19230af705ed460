// A relative path, not the @contract alias, so the CLI's tests (Jest, the root tsconfig) read it too.
import type { operations } from '../../../packages/client/src/generated/openapi';

/** One call of the API, as an action of the console makes it: what "show the API call" writes out. */
export interface ApiCall {
  operationId: keyof operations;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The contract's path template, e.g. /api/v1/dashboard/client/jobs/{job_id}/status. */
  path: string;
  pathParams?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | string[] | undefined>;
  body?: unknown;
  /** Headers the call needs besides the credential (X-Selected-Client-Id, Idempotency-Key). */
  headers?: Record<string, string>;
}

/** The credential is never written out: each form names where the caller's own goes. */
export const TOKEN_PLACEHOLDER = '$LEAD_SERVICE_TOKEN';

/** A word quoted for a POSIX shell: single quotes, each single quote closed, escaped and reopened. */
export const shellQuote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

export function filledPath(call: ApiCall): string {
  return call.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String(call.pathParams?.[name] ?? `{${name}}`)),
  );
}

export function queryString(call: ApiCall): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(call.query ?? {})) {
    if (value === undefined || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, String(v));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** `curl` with the caller's credential as a placeholder in the environment. */
export function curlCommand(call: ApiCall, origin: string): string {
  const lines = [`curl -X ${call.method} ${shellQuote(`${origin}${filledPath(call)}${queryString(call)}`)}`];
  lines.push(`-H "Authorization: Bearer ${TOKEN_PLACEHOLDER}"`);
  for (const [name, value] of Object.entries(call.headers ?? {})) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (call.body !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`--data ${shellQuote(JSON.stringify(call.body))}`);
  }
  return lines.join(' \\\n  ');
}

/**
 * The CLI's generic command (packages/client's `lead-service call <operationId>`): every operation, its path and
 * query parameters as `--param name=value`, its body as `--data`, the credential from LEAD_SERVICE_TOKEN.
 */
export function cliCommand(call: ApiCall, origin: string): string {
  const words = ['lead-service', 'call', call.operationId, '--url', origin];
  for (const [name, value] of Object.entries(call.pathParams ?? {})) words.push('--param', `${name}=${value}`);
  for (const [name, value] of Object.entries(call.query ?? {})) {
    if (value === undefined || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) words.push('--param', `${name}=${v}`);
  }
  for (const [name, value] of Object.entries(call.headers ?? {})) words.push('--header', `${name}: ${value}`);
  if (call.body !== undefined) words.push('--data', JSON.stringify(call.body));
  return `LEAD_SERVICE_TOKEN=${TOKEN_PLACEHOLDER} ${words.map(shellQuote).join(' ')}`;
}

interface McpToolDefinition {
  name: string;
  operationId: string;
  parameters: { input: string; name: string; in: string }[];
  hasBody: boolean;
}

/**
 * The MCP server's tools/call request for the same call (packages/mcp's tools, generated from the contract), or
 * null when the operation is not offered to agents over MCP. Its arguments are the parameters by their input
 * names and the body's fields beside them, as the tool's input schema has them.
 */
export function mcpToolCall(call: ApiCall, tools: readonly McpToolDefinition[]): string | null {
  const tool = tools.find((t) => t.operationId === call.operationId);
  if (!tool) return null;
  const args: Record<string, unknown> = {};
  const given: Record<string, unknown> = { ...call.pathParams, ...call.query };
  for (const [name, value] of Object.entries(call.headers ?? {})) given[name] = value;
  for (const p of tool.parameters) if (given[p.name] !== undefined) args[p.input] = given[p.name];
  if (tool.hasBody && call.body && typeof call.body === 'object') Object.assign(args, call.body);
  return JSON.stringify(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: args } },
    null,
    2,
  );
}
