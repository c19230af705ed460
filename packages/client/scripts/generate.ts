/**
 * npm run generate:client: the client's types from openapi.yaml (openapi-typescript), into src/generated/openapi.ts,
 * the operations that take an Idempotency-Key, into src/generated/idempotent-operations.ts, and every operation's
 * method, path and parameters by its operationId, into src/generated/operations.ts (the CLI's generic `call`).
 * `--check` compares instead of writing; `--contract <file>` reads another contract.
 *
 * A schema's `x-content-schema` (OpenAPI 3.0's spelling of JSON Schema's contentSchema: the JSON inside a string,
 * the event stream frames' `data`) gives that string's type, so the client's `events()`, which parses the JSON,
 * is typed from the contract.
 */
import path from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER, transformSchemaObject, type SchemaObject } from 'openapi-typescript';
import { formatted, generatorArgs, readContract, writeOrCheck } from '../../../scripts/generated-files';

export const TYPES_FILE = path.resolve(__dirname, '../src/generated/openapi.ts');
export const IDEMPOTENT_FILE = path.resolve(__dirname, '../src/generated/idempotent-operations.ts');
export const OPERATIONS_FILE = path.resolve(__dirname, '../src/generated/operations.ts');
const CONTENT_SCHEMA = 'x-content-schema';
const MAX_LINE = 120;

/** Words of `text` in lines of at most `width` characters. */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ').filter(Boolean)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  return current ? [...lines, current] : lines;
}

/**
 * Prettier leaves comments as they are, and the contract's descriptions make JSDoc lines of any length: a long
 * one-line comment becomes a block, and a long line of a block is wrapped by words, what is left over joining the
 * next line when that continues the same text.
 */
function wrapComments(source: string): string {
  const out: string[] = [];
  let carry = '';
  for (const line of source.split('\n')) {
    const single = /^(\s*)\/\*\* (.*) \*\/$/.exec(line);
    if (single && line.length > MAX_LINE) {
      const [, indent, text] = single;
      out.push(`${indent}/**`, ...wrapWords(text, MAX_LINE - indent.length - 3).map((l) => `${indent} * ${l}`));
      out.push(`${indent} */`);
      continue;
    }
    const inBlock = /^(\s*\* )(.*)$/.exec(line);
    if (!inBlock) {
      if (carry) out.push(`${/^(\s*)/.exec(line)![1]}* ${carry}`);
      carry = '';
      out.push(line);
      continue;
    }
    const [, prefix, text] = inBlock;
    const continues = carry && text.trim() && !text.trim().startsWith('@');
    if (carry && !continues) out.push(prefix + carry);
    const full = continues ? `${carry} ${text.trim()}` : text;
    carry = '';
    if (prefix.length + full.length <= MAX_LINE) {
      out.push(prefix + full);
      continue;
    }
    const [first, ...rest] = wrapWords(full, MAX_LINE - prefix.length);
    out.push(prefix + first);
    carry = rest.join(' ');
    while (prefix.length + carry.length > MAX_LINE) {
      const [head, ...tail] = wrapWords(carry, MAX_LINE - prefix.length);
      out.push(prefix + head);
      carry = tail.join(' ');
    }
  }
  return out.join('\n');
}

export async function generateTypes(contract: Record<string, unknown>): Promise<string> {
  const nodes = await openapiTS(contract as never, {
    // A request field with a default stays optional for the caller.
    defaultNonNullable: false,
    transform(schema, options) {
      const content = (schema as Record<string, unknown>)[CONTENT_SCHEMA];
      if (!content) return undefined;
      return transformSchemaObject(content as SchemaObject, { ...options, path: `${options.path}/${CONTENT_SCHEMA}` });
    },
  });
  const header = `${COMMENT_HEADER.trimEnd()}\n// Generated from openapi.yaml by npm run generate:client.\n\n`;
  return wrapComments(await formatted(TYPES_FILE, header + astToString(nodes)));
}

type Json = Record<string, any>;

const resolved = (contract: Json, node: Json): Json =>
  typeof node?.$ref === 'string'
    ? node.$ref
        .slice(2)
        .split('/')
        .reduce((at: Json, key: string) => at?.[key], contract)
    : node;

/**
 * The operations whose contract declares the Idempotency-Key header, as `METHOD /path/{template}` (what
 * openapi-fetch's middleware sees): the client sends a key with each call of one, and keeps it across retries.
 */
export async function generateIdempotentOperations(contract: Json): Promise<string> {
  const keyed: string[] = [];
  for (const [apiPath, item] of Object.entries(contract.paths as Json))
    for (const [method, operation] of Object.entries(item as Json))
      if (
        ((operation as Json)?.parameters ?? []).some((p: Json) => {
          const parameter = resolved(contract, p);
          return parameter?.in === 'header' && parameter.name === 'Idempotency-Key';
        })
      )
        keyed.push(`${method.toUpperCase()} ${apiPath}`);
  const source =
    '// Generated from openapi.yaml by npm run generate:client.\n\n' +
    '/** The operations whose contract declares the Idempotency-Key header: `METHOD /path/{template}`. */\n' +
    `export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set(${JSON.stringify(keyed.sort())});\n`;
  return formatted(IDEMPOTENT_FILE, source);
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every operation by its operationId: its method, its path template, its parameters (where each goes, its name,
 * whether it is required) and whether it takes a JSON body. What the types are at compile time, this is at run time:
 * `lead-service call <operationId>` finds an operation here and fills its path, query and headers from its options.
 */
export async function generateOperations(contract: Json): Promise<string> {
  const operations: Record<string, Json> = {};
  for (const [apiPath, item] of Object.entries(contract.paths as Json))
    for (const [method, operation] of Object.entries(item as Json)) {
      if (!METHODS.includes(method) || !(operation as Json)?.operationId) continue;
      const parameters = [...((item as Json).parameters ?? []), ...((operation as Json).parameters ?? [])]
        .map((p: Json) => resolved(contract, p))
        .map((p: Json) => ({ in: p.in, name: p.name, required: Boolean(p.required) }));
      const body = resolved(contract, (operation as Json).requestBody ?? {});
      operations[(operation as Json).operationId] = {
        method: method.toUpperCase(),
        path: apiPath,
        parameters,
        body: body?.content ? (body.required ? 'required' : 'optional') : 'none',
      };
    }
  const sorted = Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b)));
  const source =
    '// Generated from openapi.yaml by npm run generate:client.\n\n' +
    'export interface OperationParameter {\n' +
    "  in: 'path' | 'query' | 'header' | 'cookie';\n  name: string;\n  required: boolean;\n}\n\n" +
    'export interface Operation {\n  method: string;\n  /** The path template, e.g. /api/v1/dashboard/client/jobs/{job_id}/status. */\n' +
    "  path: string;\n  parameters: readonly OperationParameter[];\n  body: 'required' | 'optional' | 'none';\n}\n\n" +
    '/** Every operation of the contract by its operationId. */\n' +
    `export const OPERATIONS: Readonly<Record<string, Operation>> = ${JSON.stringify(sorted)};\n`;
  return formatted(OPERATIONS_FILE, source);
}

async function main() {
  const args = generatorArgs();
  const contract = readContract(args.contractPath);
  writeOrCheck(
    {
      [TYPES_FILE]: await generateTypes(contract),
      [IDEMPOTENT_FILE]: await generateIdempotentOperations(contract),
      [OPERATIONS_FILE]: await generateOperations(contract),
    },
    args.check,
  );
}

if (require.main === module) void main();
