import fs from 'node:fs';
import path from 'node:path';

/** The operations not built yet (test/fuzz/unbuilt-operations.txt): the one finding the fuzzer tolerates is their 501. */
export function unbuiltOperations(): string[] {
  return fs.readFileSync(path.join(__dirname, 'unbuilt-operations.txt'), 'utf8')
    .split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}

/**
 * schemathesis configuration (TOML): an unbuilt operation may answer 501 where any other operation's
 * 5xx is a server error. Nothing else is relaxed.
 */
export function toleranceConfig(unbuilt: string[]): string {
  if (!unbuilt.length) return '';
  return [
    '[[operations]]',
    `include-operation-id = [${unbuilt.map((id) => JSON.stringify(id)).join(', ')}]`,
    'checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]',
    '',
  ].join('\n');
}
