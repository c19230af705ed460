/**
 * npm run generate:client (second part): the MCP server's tools, one per operation of TOOL_OPERATIONS, into
 * src/generated/tools.json: the input schema taken from the operation's parameters and request body in openapi.yaml
 * (in the form every host accepts: scripts/host-schemas.ts), the output schema from its JSON answer, the title from
 * its summary. `--check` compares instead of writing; `--contract <file>` reads another contract.
 */
import path from 'node:path';
import { formatted, generatorArgs, readContract, writeOrCheck } from '../../../scripts/generated-files';
import { TOOL_OPERATIONS, type OperationTool, type ToolParameter } from '../src/tool-operations';
import { foldOneOf, forHosts } from './host-schemas';
import { TOOL_DESCRIPTIONS } from './tool-descriptions';

export const TOOLS_FILE = path.resolve(__dirname, '../src/generated/tools.json');

/**
 * Not tool inputs: X-Selected-Client-Id chooses a client for a super_admin (an agent token acts for its own
 * client); Idempotency-Key is the MCP server's own, a fresh one per tool call, kept across its retries.
 */
const NOT_FOR_AGENTS = ['X-Selected-Client-Id', 'Idempotency-Key'];
/** The longest tool description every host takes (OpenAI's bound; scripts/tool-descriptions.ts). */
export const MAX_TOOL_DESCRIPTION = 1024;
/** OpenAPI keywords that are no JSON Schema validation keyword, or that MCP clients need not see. */
const DROPPED = new Set(['example', 'nullable', 'discriminator', 'xml', 'externalDocs', 'readOnly', 'writeOnly']);
const SCHEMA_MAPS = new Set(['properties']);
const SCHEMA_LISTS = new Set(['oneOf', 'anyOf', 'allOf']);
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not']);

export type Json = Record<string, any>;

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const headerInput = (name: string) => name.toLowerCase().replace(/-/g, '_');

function resolve(contract: Json, node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  const target = node.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((at: Json, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], contract);
  if (!target) throw new Error(`unresolved ${node.$ref}`);
  return resolve(contract, target);
}

/** An OpenAPI 3.0 schema as JSON Schema: references inlined, `nullable` as a null type, extensions dropped. */
export function jsonSchema(contract: Json, node: Json, refs: string[] = []): Json {
  if (typeof node?.$ref === 'string') {
    if (refs.includes(node.$ref)) throw new Error(`recursive schema ${node.$ref} cannot be inlined`);
    return jsonSchema(contract, resolve(contract, node), [...refs, node.$ref]);
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (SCHEMA_MAPS.has(key))
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, jsonSchema(contract, v, refs)]));
    else if (SCHEMA_LISTS.has(key)) out[key] = (value as Json[]).map((v) => jsonSchema(contract, v, refs));
    else if (SCHEMA_VALUES.has(key) && typeof value === 'object') out[key] = jsonSchema(contract, value, refs);
    else out[key] = value;
  }
  if (node.nullable) {
    if (out.type) out.type = [out.type, 'null'];
    if (out.enum) out.enum = [...out.enum, null];
  }
  return out;
}

function operationsById(contract: Json): Map<string, { method: string; path: string; operation: Json }> {
  const byId = new Map();
  for (const [p, item] of Object.entries(contract.paths as Json))
    for (const [method, operation] of Object.entries(item as Json))
      if (operation?.operationId) byId.set(operation.operationId, { method, path: p, operation });
  return byId;
}

/** The JSON answer of an operation's success, as an output schema when it is an object (MCP's rule). */
function outputSchemaOf(contract: Json, operation: Json): OperationTool['outputSchema'] {
  const status = Object.keys(operation.responses ?? {}).find((s) => /^2\d\d$/.test(s));
  const answer = status && resolve(contract, operation.responses[status]).content?.['application/json']?.schema;
  if (!answer) return undefined;
  const schema = jsonSchema(contract, answer);
  return schema.type === 'object' ? (schema as OperationTool['outputSchema']) : undefined;
}

export function toolFor(contract: Json, operationId: string): OperationTool {
  const found = operationsById(contract).get(operationId);
  if (!found) throw new Error(`openapi.yaml has no operation ${operationId}`);
  const { method, path: apiPath, operation } = found;
  const definition = TOOL_OPERATIONS[operationId];
  const properties: Json = {};
  const required: string[] = [];
  const parameters: ToolParameter[] = [];
  let idempotencyKey = false;
  for (const declared of operation.parameters ?? []) {
    const p = resolve(contract, declared);
    if (p.in === 'header' && p.name === 'Idempotency-Key') idempotencyKey = true;
    if (NOT_FOR_AGENTS.includes(p.name) || p.in === 'cookie' || definition.omit?.includes(p.name)) continue;
    const input = p.in === 'header' ? headerInput(p.name) : p.name;
    parameters.push({ input, name: p.name, in: p.in, ...(p['x-multi-segment'] ? { multiSegment: true } : {}) });
    properties[input] = { ...jsonSchema(contract, p.schema), ...(p.description ? { description: p.description } : {}) };
    if (p.required) required.push(input);
  }
  const inputSchema: OperationTool['inputSchema'] = { type: 'object', properties, required };
  const descriptions = [operation.summary, TOOL_DESCRIPTIONS[operationId] ?? operation.description];
  const body = operation.requestBody && resolve(contract, operation.requestBody).content?.['application/json']?.schema;
  if (body) {
    const schema = jsonSchema(contract, body);
    const merged = schema.oneOf ? foldOneOf(operationId, schema.oneOf) : schema;
    if (!merged.properties) throw new Error(`${operationId}: its body cannot be merged with its parameters`);
    for (const [name, property] of Object.entries(merged.properties as Json)) {
      if (name in properties) throw new Error(`${operationId}: body field ${name} clashes with a parameter`);
      properties[name] = property;
    }
    required.push(...(merged.required ?? []));
    if ('additionalProperties' in merged) inputSchema.additionalProperties = merged.additionalProperties;
    if (merged.rule) descriptions.push(merged.rule);
  }
  if (!required.length) delete inputSchema.required;
  const description = descriptions.filter(Boolean).join('\n\n');
  if (description.length > MAX_TOOL_DESCRIPTION)
    throw new Error(
      `${operationId}: its tool's description has ${description.length} characters, over the ${MAX_TOOL_DESCRIPTION} ` +
        'an OpenAI host takes: give the tool its own in scripts/tool-descriptions.ts',
    );
  const outputSchema = outputSchemaOf(contract, operation);
  return {
    name: snakeCase(operationId),
    title: operation.summary,
    operationId,
    method: method as OperationTool['method'],
    path: apiPath,
    description,
    annotations: definition.annotations,
    parameters,
    hasBody: Boolean(body),
    idempotencyKey,
    inputSchema: forHosts(operationId, inputSchema) as OperationTool['inputSchema'],
    ...(outputSchema ? { outputSchema } : {}),
  };
}

export async function generateTools(contract: Json): Promise<string> {
  const tools = Object.keys(TOOL_OPERATIONS).map((id) => toolFor(contract, id));
  return formatted(TOOLS_FILE, JSON.stringify(tools));
}

async function main() {
  const args = generatorArgs();
  writeOrCheck({ [TOOLS_FILE]: await generateTools(readContract(args.contractPath)) }, args.check);
}

if (require.main === module) void main();
