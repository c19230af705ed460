import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createLeadServiceClient, type ResourcePage } from '@lead-service/client';
import { idapRef, resourceId } from '../../src/idap/resources/resource.model';
import { seedResources } from '../support/resources';
import { agentToken } from '../content/content-helpers';
import { SYNC_ENV, settled } from '../idap/sync/sync-helpers';
import { createClient, indexLock, useTestApi } from '../support/harness';
import { connectMcp } from './mcp-fixtures';

const CLI = path.resolve(__dirname, '../../node_modules/.bin/lead-service');

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const structured = (result: CallResult) => result.structuredContent as Record<string, any>;

describe('leads in the client, the command line and the MCP server', () => {
  const ctx = useTestApi(SYNC_ENV);
  let clientId: string;
  let token: string;
  const ref = (key: string) => idapRef('businesses', resourceId(clientId, 'businesses', key));
  const seed = async (keys: string[]) => {
    await seedResources(
      clientId,
      keys.map((key) => ({ type: 'businesses' as const, naturalKey: key, data: { name: `Lead ${key}` } })),
      indexLock(ctx.api),
    );
  };

  beforeAll(async () => {
    const tenant = await createClient(ctx.api, ctx.admin, 'Leads Everywhere');
    clientId = tenant.client_id;
    token = await agentToken(clientId, ['jobs:read', 'jobs:submit']);
    await seed(Array.from({ length: 110 }, (_, n) => `k${String(n).padStart(3, '0')}`));
    await settled();
  });

  it('client: syncResources follows the pages to the end, and its last cursor later answers only the changes', async () => {
    const lead = createLeadServiceClient({ baseUrl: ctx.api.url, token });
    const pages: ResourcePage[] = [];
    for await (const page of lead.syncResources('businesses', { limit: 40, fields: 'name' })) pages.push(page);
    expect(pages.map((p) => [p.count, p.has_more])).toEqual([
      [40, true],
      [40, true],
      [30, false],
    ]);
    expect(new Set(pages.flatMap((p) => p.items.map((i) => i.idap_ref))).size).toBe(110);
    const cursor = pages.at(-1)!.next_cursor;

    // 120 refs in one call of the helper: two calls of the service, results and errors together.
    const refs = [...Array.from({ length: 110 }, (_, n) => ref(`k${String(n).padStart(3, '0')}`))];
    const flagged = await lead.flagResources([...refs.slice(0, 5), 'businesses/1', ...refs.slice(5, 10)], {
      add: ['qualified'],
    });
    expect(Object.keys(flagged.results)).toHaveLength(10);
    expect(flagged.errors).toEqual({ 'businesses/1': expect.stringMatching(/^Invalid IDAP ref/) });
    const many = await lead.flagResources([...refs, ...refs.slice(0, 10)], { add: ['reviewed'] });
    expect(Object.keys(many.results)).toHaveLength(110);
    await settled();
    const later: ResourcePage[] = [];
    for await (const page of lead.syncResources('businesses', { cursor })) later.push(page);
    expect(later.flatMap((p) => p.items).length).toBe(110);
    expect(later.flatMap((p) => p.items).filter((i) => i.flags.includes('qualified'))).toHaveLength(10);
  });

  it('command line: leads list, sync with a state file, and flag', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-cli-leads-'));
    const cli = (...args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(CLI, args, {
          env: {
            ...process.env,
            LEAD_SERVICE_URL: ctx.api.url,
            LEAD_SERVICE_TOKEN: token,
            LEAD_SERVICE_CONFIG: path.join(dir, 'c.json'),
          },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });

    const listed = await cli('leads', 'list', 'businesses', '--limit', '2', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ count: 2, has_more: true, next_cursor: expect.any(String) });
    const md = await cli('leads', 'list', 'businesses', '--limit', '1', '--fields', 'name', '--format', 'md');
    expect(md.stdout).toContain('| # | name | flags | modified_at | idap_ref |');

    const state = path.join(dir, 'businesses.cursor');
    const first = await cli('leads', 'sync', 'businesses', '--state', state, '--limit', '50', '--json');
    expect(first.code).toBe(0);
    const lines = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, -1)).toHaveLength(110);
    expect(lines.at(-1)).toEqual({ count: 110, next_cursor: fs.readFileSync(state, 'utf8').trim() });

    const flagged = await cli('leads', 'flag', ref('k001'), ref('k002'), '--add', 'rejected', '--remove', 'new');
    expect(flagged.code).toBe(0);
    expect(flagged.stdout).toContain('[reviewed, rejected]  Lead k001');
    const failed = await cli('leads', 'flag', 'idap://businesses/42', '--add', 'rejected');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('idap://businesses/42  error: Invalid IDAP ref');
    expect((await cli('leads', 'flag', ref('k001'))).code).toBe(2);

    await settled();
    const next = await cli('leads', 'sync', 'businesses', '--state', state);
    expect(next.code).toBe(0);
    const [one, two, summary] = next.stdout.trim().split('\n');
    const line = (key: string) => `${ref(key)}  [reviewed, rejected]  Lead ${key}`;
    expect([one, two].sort()).toEqual([line('k001'), line('k002')].sort());
    expect(summary).toMatch(/^2 resources; the next sync: --cursor \S+$/);
  });

  it('MCP: list_resources and the flag tools, their answers matching their output schemas', async () => {
    const session = await connectMcp('stdio', { LEAD_SERVICE_URL: ctx.api.url, LEAD_SERVICE_TOKEN: token });
    try {
      const { tools } = await session.client.listTools();
      const annotations = (name: string) => tools.find((t) => t.name === name)!.annotations;
      expect(annotations('list_resources')).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      for (const name of ['update_resource_flags', 'batch_update_flags'])
        expect(annotations(name)).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });

      const page = await session.client.callTool({
        name: 'list_resources',
        arguments: { resource_type: 'businesses', limit: 3, flags: 'qualified', fields: 'name' },
      });
      expect(page.isError).toBeFalsy();
      expect(structured(page)).toMatchObject({ count: 3, has_more: true });
      // The cursor keeps the filter: the rest of the qualified ones (k001 and k002 were rejected since).
      const more = await session.client.callTool({
        name: 'list_resources',
        arguments: { resource_type: 'businesses', cursor: structured(page).next_cursor },
      });
      const names = [...structured(page).items, ...structured(more).items].map(
        (i: { data: { name: string } }) => i.data.name,
      );
      expect(names.sort()).toEqual(
        ['k000', 'k003', 'k004', 'k005', 'k006', 'k007', 'k008', 'k009'].map((k) => `Lead ${k}`),
      );
      expect(structured(more).has_more).toBe(false);

      const one = await session.client.callTool({
        name: 'update_resource_flags',
        arguments: {
          resource_type: 'businesses',
          resource_id: resourceId(clientId, 'businesses', 'k050'),
          add: ['qualified'],
          remove: ['new'],
        },
      });
      expect(structured(one)).toMatchObject({ idap_ref: ref('k050'), flags: ['reviewed', 'qualified'] });
      const many = await session.client.callTool({
        name: 'batch_update_flags',
        arguments: { refs: [ref('k051'), ref('nowhere')], add: ['rejected'] },
      });
      expect(structured(many)).toEqual({
        results: { [ref('k051')]: expect.objectContaining({ flags: ['new', 'reviewed', 'rejected'] }) },
        errors: { [ref('nowhere')]: 'resource_not_found' },
      });
      const refused = await session.client.callTool({
        name: 'update_resource_flags',
        arguments: { resource_type: 'businesses', resource_id: resourceId(clientId, 'businesses', 'k052'), add: [] },
      });
      expect(refused.isError).toBe(true);
    } finally {
      await session.stop();
    }
  });
});
