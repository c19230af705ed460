/**
 * `npm run release [-- --out DIR]`: the two packages as the tarballs users install (the project publishes to no
 * registry: the @lead-service scope on the public one is not ours). Builds and packs @lead-service/client and
 * @lead-service/mcp, bundles the client inside the MCP tarball (so it installs alone, asking no registry for
 * @lead-service/client), writes SHA256SUMS (`sha256sum -c SHA256SUMS` checks them) into release/ (or DIR), and then
 * tests what it wrote: each tarball installed into an empty project of its own, the command line's --version and
 * --help, the MCP server's --version and an MCP initialize and tools/list over stdio. The MCP tarball is installed
 * alone, globally (npm's prefix in an empty directory) and with --offline: everything but the client comes from npm's
 * cache (the repository's `npm install` filled it), and the client from the tarball itself.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(__dirname, '..');
const CLIENT_DIR = path.join(ROOT, 'packages/client');
const MCP_DIR = path.join(ROOT, 'packages/mcp');
const CLIENT_NAME = '@lead-service/client';
const run = promisify(execFile);
/** Without npm's own variables (set when this runs under npm run): each npm here starts afresh. */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  bundleDependencies?: string[];
}
const manifestOf = (dir: string): Manifest => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
/** npm pack's file name for a package: the scope's @ dropped, its slash a dash. */
export const tarballName = (manifest: Manifest) =>
  `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;

const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
const say = (message: string) => process.stdout.write(`[release] ${message}\n`);

/** An npm package's tarball unpacked into `into` (its `package/` folder's content). */
async function unpack(tarball: string, into: string) {
  fs.mkdirSync(into, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
}

/**
 * The client's runtime dependencies and theirs, at the versions of the repository's package-lock.json (hoisted at its
 * root, where the workspace installs them), so the bundle holds what the tests ran with.
 */
function lockedClosure(client: Manifest): [string, string][] {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
  };
  const found = new Map<string, string>();
  const visit = (name: string) => {
    const entry = lock.packages[`node_modules/${name}`];
    if (found.has(name) || !entry?.version) return;
    found.set(name, entry.version);
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(dependency);
  };
  for (const name of Object.keys(client.dependencies ?? {})) visit(name);
  return [...found];
}

/**
 * The MCP tarball with the client inside: its package unpacked, the client's tarball installed (with its own
 * dependencies, which npm bundles with it) into its node_modules and named in bundleDependencies, packed again.
 * npm pack of the workspace cannot bundle it: the workspace links the client at the root. The client's dependencies
 * travel in the bundle too (at the lockfile's versions): left to npm at install time, a global install nests them and
 * leaves them empty.
 */
async function bundleClient(mcpTarball: string, clientTarball: string, stage: string, out: string) {
  const dir = path.join(stage, 'mcp-bundled');
  await unpack(mcpTarball, dir);
  const withClient = path.join(stage, 'client-installed');
  fs.mkdirSync(withClient);
  fs.writeFileSync(path.join(withClient, 'package.json'), JSON.stringify({ name: 'bundle', private: true }));
  const pinned = lockedClosure(manifestOf(CLIENT_DIR)).map(([name, version]) => `${name}@${version}`);
  await npm(
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev', clientTarball, ...pinned],
    withClient,
  );
  const modules = path.join(dir, 'node_modules');
  fs.cpSync(path.join(withClient, 'node_modules'), modules, { recursive: true });
  for (const npmOwn of ['.bin', '.package-lock.json'])
    fs.rmSync(path.join(modules, npmOwn), { recursive: true, force: true });
  const manifest = manifestOf(dir);
  const client = manifestOf(path.join(modules, CLIENT_NAME));
  if (manifest.dependencies?.[CLIENT_NAME] !== client.version)
    throw new Error(
      `${manifest.name} depends on ${CLIENT_NAME}@${manifest.dependencies?.[CLIENT_NAME]}, not ${client.version}`,
    );
  manifest.bundleDependencies = [CLIENT_NAME];
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // Built already: prepack would run tsc where there is no TypeScript.
  await npm(['pack', '--ignore-scripts', '--pack-destination', out], dir);
}

/** `<sha-256>  <file>` per file, as sha256sum writes and `sha256sum -c` reads. */
function writeChecksums(out: string, files: string[]) {
  const lines = files.map((file) => {
    const digest = createHash('sha256')
      .update(fs.readFileSync(path.join(out, file)))
      .digest('hex');
    return `${digest}  ${file}\n`;
  });
  fs.writeFileSync(path.join(out, 'SHA256SUMS'), lines.join(''));
  return lines;
}

/** An empty project in the system's temporary directory (outside the repository: no workspace above it). */
function emptyProject(name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `lead-release-${name}-`));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `try-${name}`, private: true }));
  return dir;
}

function expectEqual(actual: unknown, expected: unknown, what: string) {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}

/** The client's tarball, installed alone: its command line answers --version and --help. */
async function testClient(tarball: string, client: Manifest) {
  const project = emptyProject('client');
  try {
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
    const cli = path.join(project, 'node_modules/.bin/lead-service');
    expectEqual(
      (await run(cli, ['--version'])).stdout.trim(),
      `${client.name} ${client.version}`,
      'lead-service --version',
    );
    const help = (await run(cli, ['--help'])).stdout;
    if (!help.startsWith('Usage: lead-service <command>'))
      throw new Error(`lead-service --help: ${help.slice(0, 200)}`);
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}

/**
 * The MCP tarball, installed alone, offline and globally (as its README says; npm's prefix in an empty directory):
 * the client comes from inside it, and the server initializes.
 */
async function testMcp(tarball: string, mcp: Manifest, client: Manifest) {
  const project = emptyProject('mcp');
  try {
    const prefix = path.join(project, 'global');
    await run('npm', ['install', '-g', '--offline', '--no-audit', '--no-fund', tarball], {
      cwd: project,
      env: { ...env, npm_config_prefix: prefix },
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n(--offline: run npm install in the repository first, it fills npm's cache)`);
    });
    const bundled = path.join(prefix, 'lib/node_modules', mcp.name, 'node_modules', CLIENT_NAME);
    expectEqual(manifestOf(bundled).version, client.version, `the ${CLIENT_NAME} bundled in ${mcp.name}`);
    const server = path.join(prefix, 'bin/lead-service-mcp');
    expectEqual(
      (await run(server, ['--version'])).stdout.trim(),
      `${mcp.name} ${mcp.version}`,
      'lead-service-mcp --version',
    );
    const session = new Client({ name: 'lead-service-release', version: mcp.version });
    await session.connect(
      new StdioClientTransport({
        command: server,
        cwd: project,
        env: { PATH: process.env.PATH ?? '', LEAD_SERVICE_TOKEN: 'lpat_release-check' },
      }),
    );
    try {
      expectEqual(session.getServerVersion()?.version, mcp.version, 'the MCP server version');
      const { tools } = await session.listTools();
      if (!tools.some((tool) => tool.name === 'wait_for_job')) throw new Error('tools/list: no wait_for_job');
    } finally {
      await session.close();
    }
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}

export async function release(out: string): Promise<string[]> {
  const client = manifestOf(CLIENT_DIR);
  const mcp = manifestOf(MCP_DIR);
  const files = [tarballName(client), tarballName(mcp)];
  fs.mkdirSync(out, { recursive: true });
  for (const old of fs.readdirSync(out).filter((f) => f.endsWith('.tgz') || f === 'SHA256SUMS'))
    fs.rmSync(path.join(out, old));
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-release-stage-'));
  const builds = [CLIENT_DIR, MCP_DIR].map((dir) => path.join(dir, 'dist')).filter((dist) => !fs.existsSync(dist));
  try {
    say('building and packing the client, then the MCP server (npm pack: prepack compiles each)');
    await npm(['pack', '-w', 'packages/client', '-w', 'packages/mcp', '--pack-destination', stage], ROOT);
    const [clientTarball, mcpTarball] = files.map((file) => path.join(stage, file));
    fs.copyFileSync(clientTarball, path.join(out, files[0]));
    say(`bundling ${CLIENT_NAME} into ${files[1]}`);
    await bundleClient(mcpTarball, clientTarball, stage, out);
    for (const line of writeChecksums(out, files)) say(`SHA256SUMS: ${line.trim()}`);
    say('testing the client tarball in an empty project');
    await testClient(path.join(out, files[0]), client);
    say('testing the MCP tarball alone, offline and global, in an empty directory');
    await testMcp(path.join(out, files[1]), mcp, client);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
    // The builds it made: the repository runs its sources.
    for (const dist of builds) fs.rmSync(dist, { recursive: true, force: true });
  }
  say(`${path.relative(process.cwd(), out) || '.'}: ${[...files, 'SHA256SUMS'].join(', ')}`);
  return files;
}

if (require.main === module) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  release(path.resolve(values.out ?? path.join(ROOT, 'release'))).catch((err: unknown) => {
    process.stderr.write(`[release] failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
