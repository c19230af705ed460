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

/**
 * The shell lines a README marks as its install instructions: each fenced block right after an `<!-- install -->`
 * comment, as written (comments and all: a shell reads them).
 */
export function installBlocks(readme: string): string[] {
  return [...readme.matchAll(/^<!-- install -->\n\n```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

/** Runs a README's install lines as they are, in `cwd`, with bash stopping at the first that fails. */
const runLines = (lines: string, cwd: string, extraEnv: Record<string, string>) =>
  run('bash', ['-euo', 'pipefail', '-c', lines], {
    cwd,
    env: { ...env, ...extraEnv },
    maxBuffer: 64 * 1024 * 1024,
  });

describe('the packages, released, installed outside the repository as their READMEs say', () => {
  // Outside the repository: npm finds no workspace above it, and only what the tarballs hold is there.
  const release = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-release-'));
  const clientProject = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-install-client-'));
  const mcpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-install-mcp-'));
  /** Where the MCP README's `npm install -g` puts the package and its command (npm's prefix, this test's own). */
  const globalPrefix = path.join(mcpDir, 'global');
  const installed = {
    client: path.join(clientProject, 'node_modules/@lead-service/client'),
    mcp: path.join(globalPrefix, 'lib/node_modules/@lead-service/mcp'),
  };
  const clientBin = path.join(clientProject, 'node_modules/.bin/lead-service');
  const mcpBin = path.join(globalPrefix, 'bin/lead-service-mcp');
  const names = PACKAGES.map((dir) => `lead-service-${path.basename(dir)}-${versionOf(dir)}.tgz`);
  const readmeOutputs: Record<string, string> = {};

  beforeAll(async () => {
    // The release as a maintainer makes it: builds, packs, bundles the client into the MCP tarball, writes
    // SHA256SUMS and tries each tarball in an empty project (scripts/release.ts).
    await run('npm', ['run', 'release', '--', '--out', release], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 });
    expect(fs.readdirSync(release).sort()).toEqual(['SHA256SUMS', ...names].sort());

    // The client's README, in a project holding the release's files.
    fs.writeFileSync(
      path.join(clientProject, 'package.json'),
      JSON.stringify({ name: 'agent-project', private: true }),
    );
    for (const file of ['SHA256SUMS', ...names])
      fs.copyFileSync(path.join(release, file), path.join(clientProject, file));
    const clientLines = installBlocks(fs.readFileSync(path.join(PACKAGES[0], 'README.md'), 'utf8'));
    expect(clientLines).toHaveLength(1);
    // Dependencies from npm's cache when it has them (the repository's install filled it), else the registry.
    readmeOutputs.client = (
      await runLines(clientLines[0], clientProject, { npm_config_prefer_offline: 'true' })
    ).stdout;

    // The MCP README's, in a directory with the MCP tarball and SHA256SUMS only: no client tarball beside it, and
    // npm offline, so nothing named @lead-service is asked of any registry (it would fail: ENOTCACHED).
    for (const file of ['SHA256SUMS', names[1]]) fs.copyFileSync(path.join(release, file), path.join(mcpDir, file));
    const mcpBlocks = installBlocks(fs.readFileSync(path.join(PACKAGES[1], 'README.md'), 'utf8'));
    expect(mcpBlocks).toHaveLength(2);
    const mcpEnv = {
      npm_config_offline: 'true',
      npm_config_prefix: globalPrefix,
      PATH: `${path.join(globalPrefix, 'bin')}${path.delimiter}${process.env.PATH}`,
    };
    readmeOutputs.mcp = '';
    for (const lines of mcpBlocks) readmeOutputs.mcp += (await runLines(lines, mcpDir, mcpEnv)).stdout;
  }, 420_000);

  afterAll(() => {
    for (const dir of [release, clientProject, mcpDir]) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the READMEs' install lines checked the sums, installed and ran each command", () => {
    /** What the lines printed but npm's own summary ("added 5 packages in 1s"). */
    const printed = (output: string) =>
      output.split('\n').filter((line) => line && !/^added \d+ packages? /.test(line));
    expect(printed(readmeOutputs.client)).toEqual([
      `${names[0]}: OK`,
      `${names[1]}: OK`,
      `@lead-service/client ${versionOf(PACKAGES[0])}`,
    ]);
    const mcpVersion = `@lead-service/mcp ${versionOf(PACKAGES[1])}`;
    // The global install's command, then the same tarball run through npx.
    expect(printed(readmeOutputs.mcp)).toEqual([`${names[1]}: OK`, mcpVersion, mcpVersion]);
  });

  it('SHA256SUMS is what sha256sum -c reads, and a changed tarball fails it', async () => {
    const tampered = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-tampered-'));
    try {
      fs.copyFileSync(path.join(release, 'SHA256SUMS'), path.join(tampered, 'SHA256SUMS'));
      fs.writeFileSync(
        path.join(tampered, names[0]),
        Buffer.concat([fs.readFileSync(path.join(release, names[0])), Buffer.from([0])]),
      );
      await expect(run('sha256sum', ['-c', '--ignore-missing', 'SHA256SUMS'], { cwd: tampered })).rejects.toMatchObject(
        {
          stdout: `${names[0]}: FAILED\n`,
        },
      );
    } finally {
      fs.rmSync(tampered, { recursive: true, force: true });
    }
  });

  it('the MCP package carries the client inside it, the very one of the release', () => {
    const bundled = path.join(installed.mcp, 'node_modules/@lead-service/client');
    expect(versionOf(bundled)).toBe(versionOf(PACKAGES[0]));
    expect(JSON.parse(fs.readFileSync(path.join(installed.mcp, 'package.json'), 'utf8')).bundleDependencies).toEqual([
      '@lead-service/client',
    ]);
    // Nothing beside it: the global install has no client of its own.
    expect(fs.existsSync(path.join(globalPrefix, 'lib/node_modules/@lead-service/client'))).toBe(false);
    expect(fs.readFileSync(path.join(bundled, 'dist/index.js'), 'utf8')).toBe(
      fs.readFileSync(path.join(installed.client, 'dist/index.js'), 'utf8'),
    );
  });

  it('hold their build, README and package.json, and none of the sources', async () => {
    for (const [dir, at] of [
      [PACKAGES[0], installed.client],
      [PACKAGES[1], installed.mcp],
    ]) {
      const files = filesUnder(at)
        .map((file) => path.relative(at, file))
        .filter((file) => !file.startsWith('node_modules/'));
      expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']));
      expect(files.filter((file) => file.startsWith('src/') || file.startsWith('scripts/'))).toEqual([]);
      expect(JSON.parse(fs.readFileSync(path.join(at, 'package.json'), 'utf8')).license).toBe(
        JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).license,
      );
      expect(versionOf(at)).toBe(versionOf(dir));
    }
  });

  it("the command line's --help and --version run from the installed package", async () => {
    const help = await run(clientBin, ['--help'], { cwd: clientProject });
    expect(help.stdout).toContain('Usage: lead-service <command> [options]');
    const version = await run(clientBin, ['--version'], { cwd: clientProject });
    expect(version.stdout.trim()).toBe(`@lead-service/client ${versionOf(PACKAGES[0])}`);
    const mcpVersion = await run(mcpBin, ['--version'], { cwd: mcpDir });
    expect(mcpVersion.stdout.trim()).toBe(`@lead-service/mcp ${versionOf(PACKAGES[1])}`);
  });

  it('the installed MCP server initializes and lists its tools over stdio, each one every host loads', async () => {
    const client = new Client({ name: 'installed-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: mcpBin,
      cwd: mcpDir,
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
    // A project using both libraries: the MCP tarball installed beside the client the README installed.
    const install = clientProject;
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(release, names[1])], {
      cwd: install,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
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
