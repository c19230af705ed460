import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));
const major = (version: string) => Number(/^v?(\d+)\./.exec(version)?.[1]);

// npm scripts (npm test, npx jest) put node_modules/.bin first on PATH, where npm linked the registry's Node binary
// that tools/node-runtime pins for this platform: the tests, their Jest workers and every `node` they spawn run on
// it whatever the machine's own Node is. Jest started some other way (node_modules/.bin/jest from a shell whose
// `node` is older) runs on the machine's Node, and this fails.
describe('the Node the project runs on', () => {
  const engines = readJson('package.json').engines.node as string;
  const floor = Number(/^>=(\d+)$/.exec(engines)?.[1]);
  const pins = readJson('tools/node-runtime/package.json').optionalDependencies as Record<string, string>;
  const pinned = pins[`node-${process.platform}-${process.arch}`];

  it('is Node 24 LTS at least, for the service and for both published packages', () => {
    expect(engines).toBe('>=24');
    for (const file of ['packages/client/package.json', 'packages/mcp/package.json']) {
      expect(readJson(file).engines.node).toBe(engines);
    }
    // Every platform's pin is one exact version of the floor's major.
    expect(new Set(Object.values(pins)).size).toBe(1);
    for (const version of Object.values(pins)) {
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(major(version)).toBe(floor);
    }
    expect(major(process.versions.node)).toBeGreaterThanOrEqual(floor);
  });

  it('is the one the READMEs name', () => {
    const [version] = new Set(Object.values(pins));
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(
      `The project runs on **Node ${floor} LTS**, pinned to ${version}:`,
    );
    for (const file of ['packages/client/README.md', 'packages/mcp/README.md']) {
      expect(fs.readFileSync(path.join(ROOT, file), 'utf8')).toContain(`Node.js ${floor} or later`);
    }
  });

  it('runs the tests on the pinned binary where the registry has one for the platform', () => {
    if (pinned === undefined) {
      // Elsewhere (macOS): npm installs none, and the machine's own Node must meet the floor.
      expect(major(process.versions.node)).toBeGreaterThanOrEqual(floor);
      return;
    }
    const binary = path.join(ROOT, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
    expect(process.versions.node).toBe(pinned);
    expect(fs.realpathSync(process.execPath)).toBe(fs.realpathSync(binary));
    expect(fs.realpathSync(path.join(ROOT, 'node_modules', '.bin', 'node'))).toBe(fs.realpathSync(binary));
  });

  it("is also the `node` a child finds on PATH, as the packages' CLIs (#!/usr/bin/env node) and tsx do", () => {
    const child = execFileSync('node', ['-p', 'process.version + " " + process.execPath'], { encoding: 'utf8' });
    const [version, execPath] = child.trim().split(' ');
    expect(version).toBe(process.version);
    expect(fs.realpathSync(execPath)).toBe(fs.realpathSync(process.execPath));
  });
});
