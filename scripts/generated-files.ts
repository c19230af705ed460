/**
 * What the generators of both packages share, kept outside both so that neither reaches into the other: the
 * contract they read (openapi.yaml, or `--contract <file>`), Prettier with the repository's settings, and `--check`,
 * which compares instead of writing (the test that keeps the committed files equal to the contract runs the
 * generators with it).
 */
import fs from 'node:fs';
import path from 'node:path';
import prettier from 'prettier';
import YAML from 'yaml';

export const REPOSITORY_ROOT = path.resolve(__dirname, '..');

export interface GeneratorArgs {
  contractPath: string;
  check: boolean;
}

export function generatorArgs(argv = process.argv.slice(2)): GeneratorArgs {
  const at = argv.indexOf('--contract');
  return {
    contractPath: at >= 0 ? path.resolve(argv[at + 1]) : path.join(REPOSITORY_ROOT, 'openapi.yaml'),
    check: argv.includes('--check'),
  };
}

export const readContract = (contractPath: string): Record<string, any> =>
  YAML.parse(fs.readFileSync(contractPath, 'utf8'));

export async function formatted(file: string, source: string): Promise<string> {
  const options = await prettier.resolveConfig(file);
  return prettier.format(source, { ...options, filepath: file });
}

/**
 * Writes each file, or with `check` reports the ones whose committed text differs from what the contract gives
 * (exit status 1), naming the command that brings them up to date.
 */
export function writeOrCheck(files: Record<string, string>, check: boolean): void {
  const stale = Object.entries(files).filter(
    ([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text,
  );
  for (const [file, text] of stale) {
    const name = path.relative(REPOSITORY_ROOT, file);
    if (check) console.error(`${name} differs from what openapi.yaml gives: run npm run generate:client`);
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      console.log(`wrote ${name}`);
    }
  }
  if (check && stale.length) process.exitCode = 1;
}
