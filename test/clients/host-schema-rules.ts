import Ajv2020 from 'ajv/dist/2020';

/**
 * What the hosts that load MCP tools refuse in a tool's name, description and input schema, each rule with where it
 * comes from.
 * A host that refuses one tool drops the whole server (Claude Code drops every tool of it, silently), so every tool
 * the server lists must pass all of them. The target is non-strict tool use, as the hosts send MCP tools (Claude
 * Code and Claude Desktop, Cursor, the OpenAI Agents SDK unless `convert_schemas_to_strict`, Bedrock Converse),
 * without what a strict mode refuses where a plain form says the same (packages/mcp/scripts/host-schemas.ts).
 */
export interface HostRule {
  rule: string;
  source: string;
  /** The places in `tool` that break the rule (empty when it holds). */
  broken(tool: HostTool): string[];
}

/** What a host reads of a tool. */
export interface HostTool {
  name: string;
  description?: string;
  inputSchema: Record<string, any>;
}

type Json = Record<string, any>;

/** Every subschema of `schema` with its place, the schema itself first. */
function* subschemas(schema: Json, at = '$'): Generator<[Json, string]> {
  yield [schema, at];
  for (const [name, sub] of Object.entries(schema.properties ?? {})) yield* subschemas(sub as Json, `${at}.${name}`);
  if (schema.items && typeof schema.items === 'object') yield* subschemas(schema.items, `${at}[]`);
  if (typeof schema.additionalProperties === 'object') yield* subschemas(schema.additionalProperties, `${at}.*`);
  for (const list of ['anyOf', 'oneOf', 'allOf'])
    for (const [i, sub] of (schema[list] ?? []).entries()) yield* subschemas(sub, `${at}.${list}[${i}]`);
  if (schema.not) yield* subschemas(schema.not, `${at}.not`);
}

/** Keywords every host's tool schemas take as they are; a subschema's `properties` names fields, not keywords. */
const PLAIN_KEYWORDS = new Set([
  'type', 'description', 'title', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const',
  'anyOf', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength',
  'maxLength', 'minItems', 'maxItems',
]); // prettier-ignore

// Strict about keywords (an unknown one is an error), not about types (draft 2020-12 allows `properties` without a
// `type`; the second rule speaks for the top level) nor formats (an annotation in 2020-12; the fifth rule's).
const draft2020 = new Ajv2020({ strict: true, strictTypes: false, validateFormats: false, allErrors: true });

export const HOST_RULES: HostRule[] = [
  {
    rule: 'the name is 1 to 64 letters, digits, `_` or `-`',
    source:
      'OpenAI function calling (name: a-z, A-Z, 0-9, underscores and dashes, at most 64); Anthropic Messages API ' +
      'tools (name ^[a-zA-Z0-9_-]{1,64}$); Bedrock Converse ToolSpecification (name [a-zA-Z0-9_-]+, 1 to 64)',
    broken: (tool) => (/^[\w-]{1,64}$/.test(tool.name) ? [] : [tool.name]),
  },
  {
    rule: 'the description is 1 to 1024 characters',
    source:
      "OpenAI function calling: \"Invalid 'tools[N].function.description': string too long. Expected a string with " +
      'maximum length 1024" (code string_above_max_length: the whole request fails, every tool of every server ' +
      'with it); Bedrock Converse ToolSpecification: description of minimum length 1',
    broken: ({ description }) => {
      const length = description?.length ?? 0;
      return length >= 1 && length <= 1024 ? [] : [`description (${length} characters)`];
    },
  },
  {
    rule: 'the input schema is an object schema: `type: "object"` with `properties`',
    source:
      'Bedrock Converse: "The value at toolConfig.tools.N.toolSpec.inputSchema.json.type must be one of the ' +
      'following: object"; OpenAI: "schema must have type \'object\'", and `properties` (the OpenAI Agents SDK adds ' +
      'it to an MCP schema that lacks it: the OpenAI spec requires it); MCP Tool.inputSchema: type "object"',
    broken: ({ inputSchema }) =>
      inputSchema.type === 'object' && typeof inputSchema.properties === 'object' ? [] : ['$'],
  },
  {
    rule: 'no oneOf, anyOf, allOf, enum or not at the top level',
    source:
      'Anthropic: "input_schema does not support oneOf, allOf, or anyOf at the top level" (Claude Code then fails ' +
      "every request with the server's tools); OpenAI: \"schema must have type 'object' and not have " +
      "'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level\"; Bedrock passes Anthropic's error through",
    broken: ({ inputSchema }) =>
      ['oneOf', 'anyOf', 'allOf', 'enum', 'not'].filter((k) => k in inputSchema).map((k) => `$.${k}`),
  },
  {
    rule: 'the input schema is valid JSON Schema draft 2020-12, with no keyword Ajv does not know (strict)',
    source: 'Anthropic: "input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12"',
    broken: ({ inputSchema }) => {
      if (!draft2020.validateSchema(inputSchema)) return [draft2020.errorsText(draft2020.errors)];
      try {
        draft2020.compile(inputSchema);
        return [];
      } catch (err) {
        return [(err as Error).message];
      }
    },
  },
  {
    rule: 'only plain keywords anywhere: no format, default, oneOf, allOf, not, uniqueItems, $ref or extensions',
    source:
      'OpenAI strict mode: "\'default\' is not permitted", oneOf and allOf not permitted in nested schemas, ' +
      'uniqueItems and patternProperties not supported, only some formats; Bedrock strict tools: oneOf unsupported; ' +
      'Anthropic strict tool use: only some formats, no recursive or external $ref. Each has a plain form: words in ' +
      'the description, a pattern, or anyOf for forms of different types',
    broken: ({ inputSchema }) => {
      const places: string[] = [];
      for (const [schema, at] of subschemas(inputSchema))
        for (const keyword of Object.keys(schema)) if (!PLAIN_KEYWORDS.has(keyword)) places.push(`${at}.${keyword}`);
      return places;
    },
  },
  {
    rule: 'patterns use the common regular-expression subset: no lookaround, backreference or \\b',
    source:
      'Anthropic strict tool use (pattern: no backreferences, lookahead/lookbehind or \\b); OpenAI Structured ' +
      'Outputs (a subset of regular expressions)',
    broken: ({ inputSchema }) => {
      const places: string[] = [];
      for (const [schema, at] of subschemas(inputSchema))
        if (typeof schema.pattern === 'string' && /\(\?<?[=!]|\\[1-9]|\\b|\(\?</i.test(schema.pattern))
          places.push(`${at}.pattern`);
      return places;
    },
  },
];

/** Each rule `tool` breaks, with the places. */
export const brokenRules = (tool: HostTool) =>
  HOST_RULES.map(({ rule, broken }) => ({ rule, places: broken(tool) })).filter((r) => r.places.length);
