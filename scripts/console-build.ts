/**
 * npm run console:build: the console built by Vite into console/dist, unless the build there was made from the same
 * sources (a hash of console/'s sources, its configuration, the lockfile and the contract it is typed from, kept in
 * console/dist/.source-hash). `npm start` runs it first (prestart), so `npm install && npm start` serves a built
 * console and a fresh one costs nothing. `--force` builds anyway.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const CONSOLE = path.join(ROOT, 'console');
const DIST = path.join(CONSOLE, 'dist');
const STAMP = path.join(DIST, '.source-hash');
const INPUTS = [
  'console/src',
  'console/index.html',
  'console/vite.config.ts',
  'console/package.json',
  'package-lock.json',
  'packages/client/src/generated/openapi.ts',
  'packages/mcp/src/generated/tools.json',
];

function filesUnder(relative: string): string[] {
  const full = path.join(ROOT, relative);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [relative];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .flatMap((e) => filesUnder(path.join(relative, e.name)))
    .sort();
}

export function consoleSourceHash(): string {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder)) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(ROOT, file)));
  }
  return hash.digest('hex');
}

export function buildConsole({ force = false, say = (line: string) => process.stdout.write(`${line}\n`) } = {}) {
  const hash = consoleSourceHash();
  const built = fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8').trim() : null;
  if (!force && built === hash && fs.existsSync(path.join(DIST, 'index.html'))) {
    say('console: the build in console/dist is fresh');
    return;
  }
  say('console: building (vite build)…');
  // vite's package exports no bin path; its package.json names the bin.
  const vitePackage = require.resolve('vite/package.json', { paths: [CONSOLE] });
  const { bin } = JSON.parse(fs.readFileSync(vitePackage, 'utf8')) as { bin: { vite: string } };
  const vite = path.join(path.dirname(vitePackage), bin.vite);
  const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: CONSOLE, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`vite build failed (exit ${result.status ?? result.signal})`);
  fs.writeFileSync(STAMP, `${hash}\n`);
  say('console: built into console/dist');
}

if (require.main === module) {
  try {
    buildConsole({ force: process.argv.includes('--force') });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
