#!/usr/bin/env node
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS launcher, run by node as it is */
// The published package runs its build (dist/). In the repository, where the package is not built, its TypeScript
// source runs through tsx, a development dependency of the repository, with the repository's tsconfig.
const fs = require('node:fs');
const path = require('node:path');

const built = path.join(__dirname, '../dist/cli.js');
if (fs.existsSync(built)) require(built).main();
else {
  process.env.TSX_TSCONFIG_PATH ??= path.join(__dirname, '../../../tsconfig.json');
  require('tsx/cjs');
  require('../src/cli.ts').main();
}
