/**
 * Input schemas in the form every host that loads MCP tools accepts (the rules, with their sources, are in
 * test/clients/host-schema-rules.ts, which checks every tool the server lists). The hosts send MCP tools to their
 * models in non-strict mode (Claude Code and Claude Desktop; Cursor; the OpenAI Agents SDK unless
 * `convert_schemas_to_strict`; Bedrock Converse), so that is the target; within it, nothing a strict mode refuses is
 * kept where a plain form says the same:
 * - a top-level `oneOf` (refused by Anthropic, OpenAI and Bedrock) is folded into optional properties, its rule in
 *   the description; the service still enforces it (422);
 * - a nested `oneOf` whose forms have different types becomes the `anyOf` it is equivalent to;
 * - `format` becomes words in the description (a UUID also a pattern); `default` and `uniqueItems` become words;
 * - any other keyword outside the plain set stops the generator, naming the operation, so that a new operation
 *   cannot ship a schema some host refuses.
 * Strict mode is not the target: it requires every property and `additionalProperties: false` on every object,
 * which the relays' pass-through objects cannot be, and Anthropic's strict mode has no length or range limits.
 */
import { isDeepStrictEqual } from 'node:util';

type Json = Record<string, any>;

/** Keywords every host's tool schemas accept as they are. */
const PLAIN = new Set([
  'type',
  'description',
  'title',
  'required',
  'enum',
  'const',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
]);

/** What a `format` says, in words (and as a pattern where one says exactly the same). */
const FORMATS: Record<string, { words: string; pattern?: string }> = {
  uuid: { words: 'A UUID.', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
  uri: { words: 'An absolute URI, e.g. `https://example.com/hook`.' },
  'date-time': { words: 'An RFC 3339 date-time, e.g. `2025-03-14T10:05:00Z`.' },
  date: { words: 'An RFC 3339 full date, e.g. `2025-03-14`.' },
  email: { words: 'An e-mail address.' },
};

const code = (name: string) => `\`${name}\``;
const words = (value: unknown) => (typeof value === 'string' ? code(value) : code(JSON.stringify(value)));
const withNotes = (description: unknown, notes: string[]) =>
  [description, ...notes].filter((text) => typeof text === 'string' && text).join(' ');

/** Whether no value can match two of `forms`: each names one type, and no two the same (integers are numbers). */
function typesDisjoint(forms: Json[]): boolean {
  const types = forms.map((form) => (form.type === 'integer' ? 'number' : form.type));
  return types.every((type) => typeof type === 'string') && new Set(types).size === types.length;
}

/** `schema` (an input schema or part of one, at `at`) in the form every host accepts. */
export function forHosts(operationId: string, schema: Json, at = 'input'): Json {
  const out: Json = {};
  const notes: string[] = [];
  const nested = (value: Json, where: string) => forHosts(operationId, value, where);
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'properties')
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, nested(v, `${at}.${k}`)]));
    else if (keyword === 'items') out.items = nested(value, `${at}[]`);
    else if (keyword === 'additionalProperties')
      out.additionalProperties = typeof value === 'object' ? nested(value, `${at}.*`) : value;
    else if (keyword === 'anyOf' || (keyword === 'oneOf' && typesDisjoint(value)))
      out.anyOf = (value as Json[]).map((form, i) => nested(form, `${at}|${i}`));
    else if (keyword === 'format' && FORMATS[value]) {
      notes.push(FORMATS[value].words);
      if (FORMATS[value].pattern && !schema.pattern) out.pattern = FORMATS[value].pattern;
    } else if (keyword === 'default') notes.push(`Default: ${words(value)}.`);
    else if (keyword === 'uniqueItems') notes.push(value ? 'No duplicates.' : '');
    else if (PLAIN.has(keyword)) out[keyword] = value;
    else
      throw new Error(
        `${operationId}: ${at} has \`${keyword}: ${JSON.stringify(value)}\`, which some host's tool schemas refuse ` +
          'and no plain form in packages/mcp/scripts/host-schemas.ts says',
      );
  }
  if (notes.some(Boolean)) out.description = withNotes(schema.description, notes);
  return out;
}

/**
 * A body that is one of several object forms, as one object with every form's properties: those all forms require
 * stay required, the others optional; the forms and what each requires are said in `rule` (for the tool's
 * description) and beside each property that only some forms have.
 */
export function foldOneOf(operationId: string, forms: Json[]): Json {
  if (!forms.every((form) => form.type === 'object' && form.properties))
    throw new Error(`${operationId}: a oneOf of other than object forms cannot be folded into one input`);
  const properties: Json = {};
  for (const form of forms)
    for (const [name, schema] of Object.entries(form.properties as Json)) {
      if (name in properties && !isDeepStrictEqual(properties[name], schema))
        throw new Error(`${operationId}: ${name} differs between the forms of its body`);
      properties[name] = schema;
    }
  const names = Object.keys(properties);
  const required = names.filter((name) => forms.every((form) => form.required?.includes(name)));
  const own = forms.map((form) => (form.required ?? []).filter((name: string) => !required.includes(name)));
  const titled = forms.map((form, i) => form.title ?? `form ${i + 1}`);
  const described = forms.map((_, i) => `${titled[i]}: ${own[i].map(code).join(' and ')}`);
  for (const name of names.filter((n) => !forms.every((form) => n in form.properties))) {
    const holders = titled.filter((_, i) => name in forms[i].properties);
    const note = `Only in the form ${holders.map((title) => `"${title}"`).join(' or ')} (the tool's description says the forms).`;
    properties[name] = { ...properties[name], description: withNotes(properties[name].description, [note]) };
  }
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    ...(forms.every((form) => form.additionalProperties === false) ? { additionalProperties: false } : {}),
    rule: `Give exactly one of these forms (the service answers 422 otherwise): ${described.join('; or ')}.`,
  };
}
