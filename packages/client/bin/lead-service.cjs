#!/usr/bin/env node
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS launcher, run by node as it is */
// The installed package runs its build (dist/). In the repository, where src/ is and nothing is built, the
// TypeScript source runs through tsx (a development dependency of the repository) with the repository's tsconfig.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
if (fs.existsSync(path.join(root, 'src/cli.ts'))) {
  process.env.TSX_TSCONFIG_PATH ??= path.join(root, '../../tsconfig.json');
  require('tsx/cjs');
  require(path.join(root, 'src/cli.ts')).main();
} else require(path.join(root, 'dist/cli.js')).main();
