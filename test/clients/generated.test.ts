import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const GENERATORS = ['packages/client/scripts/generate.ts', 'packages/mcp/scripts/generate-tools.ts'];
const GENERATED = ['packages/client/src/generated/openapi.ts', 'packages/mcp/src/generated/tools.json'];

/** Runs a generator as npm run generate:client does, comparing instead of writing. */
const check = (generator: string, contract = path.join(ROOT, 'openapi.yaml')) =>
  spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), [generator, '--check', '--contract', contract], {
    cwd: ROOT,
    encoding: 'utf8',
  });

describe('the generated client types and MCP tool schemas', () => {
  it.each(GENERATORS)('%s: the committed files are what openapi.yaml gives', (generator) => {
    const run = check(generator);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it.each(GENERATORS.map((generator, i) => [generator, GENERATED[i]]))(
    '%s: a contract that differs fails the check, naming %s',
    (generator, generated) => {
      const changed = fs
        .readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8')
        .replace('description: What to search for.', 'description: What the job searches for.');
      const contract = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'contract-')), 'openapi.yaml');
      fs.writeFileSync(contract, changed);
      const run = check(generator, contract);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`${generated} differs from what openapi.yaml gives: run npm run generate:client`);
    },
  );

  it('the MCP generator refuses an operation whose input no plain form gives every host, naming it', () => {
    const changed = fs
      .readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8')
      .replace(
        'description: Pin name; letters, digits, `_` and `-`; stored and compared upper-case.',
        'description: Pin name.\n                  not: {const: X}',
      );
    const contract = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'contract-')), 'openapi.yaml');
    fs.writeFileSync(contract, changed);
    const run = check(GENERATORS[1], contract);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(
      /previewPin: input\.name has `not: \{"const":"X"\}`, which some host's tool schemas refuse/,
    );
  });

  it('the MCP generator refuses a tool description longer than an OpenAI host takes, naming the operation', () => {
    const changed = fs
      .readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8')
      .replace(
        '        Validity and details of the agent access token making the call',
        `        ${'A long preamble. '.repeat(60)}\n        Validity and details of the agent access token making the call`,
      );
    const contract = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'contract-')), 'openapi.yaml');
    fs.writeFileSync(contract, changed);
    const run = check(GENERATORS[1], contract);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/getAccessTokenStatus: its tool's description has \d+ characters, over the 1024/);
  });
});
