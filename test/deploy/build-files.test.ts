import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

/**
 * The files `tsc -p <config>` emits, relative to the config's folder: every file of its program (those it includes
 * and whatever they import statically) that is neither a declaration file nor a dependency's. Listed by tsc itself
 * (`--listFilesOnly`), in a process of its own: a whole program's types would stay in the test's worker.
 */
function emittedSources(configFile: string): string[] {
  const tsc = require.resolve('typescript/bin/tsc');
  const listed = execFileSync(process.execPath, [tsc, '-p', configFile, '--listFilesOnly'], { encoding: 'utf8' });
  const base = path.dirname(configFile);
  return listed
    .split('\n')
    .filter((file) => file && !file.endsWith('.d.ts') && !file.split(/[\\/]/).includes('node_modules'))
    .map((file) => path.relative(base, file).split(path.sep).join('/'));
}

/** A development file: anything of tools/, or a module of the devstack or of its FerretDB build wherever it sits. */
const isDevelopmentFile = (file: string) => file.startsWith('tools/') || /devstack|ferretdb/i.test(file);

describe('the production build', () => {
  it('holds the service and no development file (tools/, the devstack, its FerretDB build)', () => {
    const files = emittedSources(path.join(root, 'tsconfig.build.json'));
    // What production runs is there: the entry points and the seam that stops short of the devstack.
    expect(files).toEqual(
      expect.arrayContaining([
        'src/main.ts',
        'src/worker.ts',
        'src/lib/engines/local-engines.ts',
        'workflows/index.ts',
      ]),
    );
    expect(files.filter(isDevelopmentFile)).toEqual([]);
  }, 60_000);

  it('would show a development module that a module of the service imported', () => {
    // The same listing over a small project whose service imports its tooling: the tooling is in its build.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'build-files-'));
    try {
      fs.mkdirSync(path.join(dir, 'src'));
      fs.mkdirSync(path.join(dir, 'tools', 'devstack'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'tools', 'devstack', 'index.ts'), 'export const start = () => 1;\n');
      fs.writeFileSync(path.join(dir, 'src', 'main.ts'), "import { start } from '../tools/devstack';\nstart();\n");
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { rootDir: '.', outDir: 'dist', types: [] }, include: ['src'] }),
      );
      expect(emittedSources(path.join(dir, 'tsconfig.json')).filter(isDevelopmentFile)).toEqual([
        'tools/devstack/index.ts',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is all the image takes of the repository (the compiled build, the contract, the built console)', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const copied = [...runtimeStage.matchAll(/^COPY --from=build (.+) \S+$/gm)].flatMap((m) => m[1].split(/\s+/));
    expect(copied.sort()).toEqual(
      ['/app/console/dist', '/app/dist', '/app/node_modules', '/app/openapi.yaml', '/app/package.json'].sort(),
    );
    // Only from the build stage: nothing of the work tree (tools/, test/) is copied in directly.
    expect(runtimeStage).not.toMatch(/^COPY (?!--from=build )/m);
    // And the build stage has no devstack to compile: the build fails should the service import it.
    expect(fs.readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n')).toContain('tools/devstack');
  });
});
