import fs from 'node:fs';
import path from 'node:path';

/** The operations not built yet (test/fuzz/unbuilt-operations.txt): the one finding the fuzzer tolerates is their 501 (config.ts). */
export function unbuiltOperations(): string[] {
  return fs.readFileSync(path.join(__dirname, 'unbuilt-operations.txt'), 'utf8')
    .split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}

