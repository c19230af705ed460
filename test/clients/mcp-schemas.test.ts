import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { brokenRules, HOST_RULES } from './host-schema-rules';
import { connectMcp } from './mcp-fixtures';

describe("the MCP server's tools against the hosts' schema rules", () => {
  let tools: Tool[];
  beforeAll(async () => {
    // Listing tools calls nothing of the service: no service is needed.
    const session = await connectMcp('stdio', { LEAD_SERVICE_TOKEN: 'lpat_listing-only' });
    tools = (await session.client.listTools()).tools;
    await session.stop();
  });

  it('every tool the server lists keeps every rule', () => {
    expect(tools.length).toBeGreaterThan(15);
    expect(tools.flatMap((tool) => brokenRules(tool).map((broken) => ({ tool: tool.name, ...broken })))).toEqual([]);
  });

  it('every tool has a title, all four annotations, and an output schema that is an object schema', () => {
    for (const tool of tools) {
      expect({ name: tool.name, title: typeof tool.title }).toEqual({ name: tool.name, title: 'string' });
      const hints = ['readOnlyHint', 'idempotentHint', 'openWorldHint'] as const;
      for (const hint of hints) expect([tool.name, hint, typeof tool.annotations?.[hint]]).toEqual([tool.name, hint, 'boolean']); // prettier-ignore
      // destructiveHint means something only for a tool that writes.
      if (!tool.annotations?.readOnlyHint) expect([tool.name, typeof tool.annotations?.destructiveHint]).toEqual([tool.name, 'boolean']); // prettier-ignore
      expect([tool.name, tool.outputSchema?.type]).toEqual([tool.name, 'object']);
    }
    const hintsOf = (name: string) => tools.find((t) => t.name === name)!.annotations;
    expect(hintsOf('get_job_status')).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(hintsOf('wait_for_job')).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    for (const cancel of ['cancel_job', 'cancel_research_job'])
      expect(hintsOf(cancel)).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    for (const outside of ['confirm_pin', 'proxy_maps', 'proxy_parcel_tracking', 'proxy_messaging'])
      expect(hintsOf(outside)).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(hintsOf('submit_maps_scrape_job')).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });

  it("folds the research submit's two forms into optional properties, its rule in the description", () => {
    const submit = tools.find((t) => t.name === 'submit_research_job')!;
    expect(submit.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { companies: { type: 'array' }, source_job_id: { type: 'string' }, webhook_url: {} },
    });
    expect(submit.inputSchema.required).toBeUndefined();
    expect(submit.description).toContain(
      'Give exactly one of these forms (the service answers 422 otherwise): Listed companies: `companies`; or ' +
        'From a maps-scrape job: `source_job_id`.',
    );
    const status = tools.find((t) => t.name === 'get_job_status')!;
    expect(status.inputSchema.properties!.job_id).toEqual({
      type: 'string',
      pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
      description: 'Job id. A UUID.',
    });
    const results = tools.find((t) => t.name === 'get_job_results')!;
    expect(Object.keys(results.inputSchema.properties!)).toEqual(['job_id', 'page', 'page_size']);
    expect(results.inputSchema.properties!.page_size).toMatchObject({ description: 'Items per page. Default: `20`.' });
  });

  it('each rule catches what a host refuses', () => {
    const description = 'Does one thing.';
    const plain = { name: 'ok', description, inputSchema: { type: 'object', properties: { a: { type: 'string' } } } };
    expect(brokenRules(plain)).toEqual([]);
    expect(brokenRules({ ...plain, description: 'x'.repeat(1024) })).toEqual([]);
    // Each case breaks the rule it is listed with (maybe others too).
    const refused: [string, Record<string, unknown>, number, string?][] = [
      ['bad name!', plain.inputSchema, 0],
      ['too_long', plain.inputSchema, 1, 'x'.repeat(1025)],
      ['no_description', plain.inputSchema, 1, ''],
      ['no_type', { properties: {} }, 2],
      ['top_level_one_of', { type: 'object', properties: {}, oneOf: [{ required: ['a'] }, { required: ['b'] }] }, 3],
      ['not_2020_12', { type: 'object', properties: { a: { type: 'string', minLength: -1 } } }, 4],
      ['a_format', { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } }, 5],
      ['a_default', { type: 'object', properties: { n: { type: 'integer', default: 5 } } }, 5],
      ['nested_one_of', { type: 'object', properties: { f: { oneOf: [{ type: 'string' }, { type: 'number' }] } } }, 5],
      ['lookahead', { type: 'object', properties: { p: { type: 'string', pattern: '^(?!x)' } } }, 6],
    ];
    for (const [name, inputSchema, rule, text = description] of refused)
      expect([name, brokenRules({ name, description: text, inputSchema }).map((b) => b.rule)]).toEqual([
        name,
        expect.arrayContaining([HOST_RULES[rule].rule]),
      ]);
    expect(HOST_RULES.every((rule) => rule.source.length > 0)).toBe(true);
  });
});
