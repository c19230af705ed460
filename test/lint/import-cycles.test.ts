import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

/** Each file's relative imports (type-only ones too: a cycle of types is still two files that need each other). */
function importGraph(sources: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const imported = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.join(path.dirname(file), name))
      .map((base) => [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => sources.has(candidate)))
      .filter((found): found is string => found !== undefined);
    graph.set(file, imported);
  }
  return graph;
}

/** The groups of files that import each other, directly or around a loop (Tarjan's strongly connected components). */
export function importCycles(sources: Map<string, string>): string[][] {
  const graph = importGraph(sources);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file)!) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)!.includes(file)) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** Every TypeScript file git tracks under src/, by its path from the repository's root. */
function srcFiles(): Map<string, string> {
  const files = execFileSync('git', ['ls-files', 'src/*.ts'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
  return new Map(files.map((file) => [file, fs.readFileSync(path.join(ROOT, file), 'utf8')]));
}

describe("src/'s imports", () => {
  it('form no cycle (runtime.ts and the worker process included)', () => {
    const sources = srcFiles();
    expect(sources.size).toBeGreaterThan(300);
    expect(importCycles(sources)).toEqual([]);
  });

  it('run from the areas to src/lib, never back: src/lib imports no area', () => {
    const fromLib = [...importGraph(srcFiles())]
      .filter(([file]) => file.startsWith('src/lib/'))
      .flatMap(([file, imported]) =>
        imported.filter((to) => !to.startsWith('src/lib/')).map((to) => `${file} → ${to}`),
      );
    expect(fromLib).toEqual([]);
  });

  it('are read so that a cycle is found, through a type-only import too', () => {
    const planted = new Map([
      ['src/runtime.ts', "import { startWorkerProcess } from './worker/worker-process';"],
      ['src/worker/worker-process.ts', "import type { EngineRuntime } from '../runtime';"],
      ['src/a.ts', "import { b } from './b';"],
      ['src/b/index.ts', "export { c } from '../c';"],
      ['src/c.ts', "import type { A } from './a';"],
      ['src/lone.ts', "import { a } from './a';"],
    ]);
    expect(importCycles(planted)).toEqual(
      expect.arrayContaining([
        ['src/runtime.ts', 'src/worker/worker-process.ts'],
        ['src/a.ts', 'src/b/index.ts', 'src/c.ts'],
      ]),
    );
    expect(importCycles(planted)).toHaveLength(2);
  });
});
