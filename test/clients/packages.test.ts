import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { brokenRules } from './host-schema-rules';

const ROOT = path.resolve(__dirname, '../..');
const PACKAGES = ['client', 'mcp'].map((name) => path.join(ROOT, 'packages', name));
const run = promisify(execFile);
/** The environment without npm's own variables (set when the tests run under npm): each npm here starts afresh. */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
const versionOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;

/** Every file of a folder, recursively. */
const filesUnder = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));

describe('the packages, packed and installed outside the repository', () => {
  // Outside the repository: npm finds no workspace above it, and only what the tarballs hold is there.
  const packs = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-packs-'));
  const install = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-install-'));
  const bin = (name: string) => path.join(install, 'node_modules/.bin', name);

  beforeAll(async () => {
    // npm pack builds each package first (prepack: tsc into its dist/), the client before the MCP server.
    const packed = await run(
      'npm',
      ['pack', '-w', 'packages/client', '-w', 'packages/mcp', '--pack-destination', packs],
      {
        cwd: ROOT,
        env,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const tarballs = packed.stdout
      .trim()
      .split('\n')
      .filter((line) => line.endsWith('.tgz'));
    expect(tarballs).toEqual([
      `lead-service-client-${versionOf(PACKAGES[0])}.tgz`,
      `lead-service-mcp-${versionOf(PACKAGES[1])}.tgz`,
    ]);
    fs.writeFileSync(path.join(install, 'package.json'), JSON.stringify({ name: 'agent-project', private: true }));
    // Dependencies come from npm's cache when it has them (the repository's install filled it), else the registry;
    // the MCP package's dependency on the client is met by the client's tarball installed beside it.
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs.map((t) => path.join(packs, t))],
      {
        cwd: install,
        env,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  }, 300_000);

  afterAll(() => {
    // The builds npm pack made; the repository runs its sources, and lint would see these.
    for (const dir of PACKAGES) fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
    fs.rmSync(packs, { recursive: true, force: true });
    fs.rmSync(install, { recursive: true, force: true });
  });

  it('hold their build, README and package.json, and none of the sources', async () => {
    for (const [dir, name] of [
      [PACKAGES[0], 'client'],
      [PACKAGES[1], 'mcp'],
    ]) {
      const installed = path.join(install, 'node_modules/@lead-service', name);
      const files = filesUnder(installed).map((file) => path.relative(installed, file));
      expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']));
      expect(files.filter((file) => file.startsWith('src/') || file.startsWith('scripts/'))).toEqual([]);
      expect(JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).license).toBe(
        JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).license,
      );
      expect(versionOf(installed)).toBe(versionOf(dir));
    }
  });

  it("the command line's --help and --version run from the installed package", async () => {
    const help = await run(bin('lead-service'), ['--help'], { cwd: install });
    expect(help.stdout).toContain('Usage: lead-service <command> [options]');
    const version = await run(bin('lead-service'), ['--version'], { cwd: install });
    expect(version.stdout.trim()).toBe(`@lead-service/client ${versionOf(PACKAGES[0])}`);
    const mcpVersion = await run(bin('lead-service-mcp'), ['--version'], { cwd: install });
    expect(mcpVersion.stdout.trim()).toBe(`@lead-service/mcp ${versionOf(PACKAGES[1])}`);
  });

  it('the installed MCP server initializes and lists its tools over stdio, each one every host loads', async () => {
    const client = new Client({ name: 'installed-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: bin('lead-service-mcp'),
      cwd: install,
      env: { PATH: process.env.PATH!, LEAD_SERVICE_TOKEN: 'lpat_listing-only' },
    });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'lead-service', version: versionOf(PACKAGES[1]) });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['submit_maps_scrape_job', 'wait_for_job']));
      expect(tools.flatMap((tool) => brokenRules(tool))).toEqual([]);
      expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('exports their entry points (with types) and nothing deeper, to require and import alike', async () => {
    const script = [
      "const client = require('@lead-service/client');",
      "const mcp = require('@lead-service/mcp');",
      'console.log(typeof client.createLeadServiceClient, typeof mcp.createLeadServiceMcpServer);',
      "try { require('@lead-service/client/dist/cli.js'); } catch (err) { console.log(err.code); }",
    ].join('\n');
    expect((await run('node', ['-e', script], { cwd: install })).stdout.split('\n')).toEqual([
      'function function',
      'ERR_PACKAGE_PATH_NOT_EXPORTED',
      '',
    ]);
    const esm =
      "import { createLeadServiceClient } from '@lead-service/client'; console.log(typeof createLeadServiceClient);";
    expect((await run('node', ['--input-type=module', '-e', esm], { cwd: install })).stdout.trim()).toBe('function');
    // A TypeScript project resolving through the exports map (node16) finds the declarations.
    fs.writeFileSync(
      path.join(install, 'check.ts'),
      "import { createLeadServiceClient, type LeadServiceClient } from '@lead-service/client';\n" +
        "import { createLeadServiceMcpServer } from '@lead-service/mcp';\n" +
        "const client: LeadServiceClient = createLeadServiceClient({ baseUrl: 'http://127.0.0.1:8080' });\n" +
        "export const server = createLeadServiceMcpServer({ baseUrl: 'http://127.0.0.1:8080', token: 'x' });\n" +
        'export const api = client.api;\n',
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const options = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'node16', '--moduleResolution', 'node16'];
    await expect(run('node', [tsc, ...options, 'check.ts'], { cwd: install })).resolves.toMatchObject({ stdout: '' });
  });

  it("the MCP package reaches the client only through the client's public entry point", () => {
    const mcp = PACKAGES[1];
    const deep = filesUnder(mcp)
      .filter((file) => !file.includes(`${path.sep}dist${path.sep}`) && /\.(?:ts|cjs|js|json)$/.test(file))
      .flatMap((file) =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /@lead-service\/client\/|['"](?:\.\.\/)+client\/|packages\/client/.test(line))
          .map((line) => `${path.relative(ROOT, file)}: ${line.trim()}`),
      );
    expect(deep).toEqual([]);
  });
});
