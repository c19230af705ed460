// Lints snippets with the repository's ESLint configuration, through ESLint's Node API, outside Jest (whose module
// sandbox cannot load the configuration's ES module): reads [{ filePath, code }] as JSON on stdin and writes, for
// each, the messages of its no-restricted-imports findings.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });
let input = '';
for await (const chunk of process.stdin) input += chunk;
const findings = [];
for (const { filePath, code } of JSON.parse(input)) {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  findings.push(result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message));
}
process.stdout.write(JSON.stringify(findings));
