import fs from 'node:fs';
import { bundleWorkflows } from './create-worker';

/**
 * `node dist/src/worker/bundle-cli.js <file>`: bundles the workflows once, at image build time, so a worker starts
 * without the bundler (WORKFLOW_BUNDLE_PATH=<file>) and every replica runs byte-identical workflow code.
 */
async function main() {
  const file = process.argv[2];
  if (!file) throw new Error('usage: bundle-cli <output file>');
  const { code } = await bundleWorkflows();
  fs.writeFileSync(file, code);
  process.stdout.write(`workflow bundle: ${file} (${Math.round(code.length / 1024)} KiB)\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
