/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS launcher, run by node as it is */
// How a package's command starts (this package's and the MCP server's, which depends on it): the published
// package runs its build (dist/). In the repository, where the package is not built, its TypeScript source runs
// through tsx, a development dependency of the repository, with the repository's tsconfig.
const fs = require('node:fs');
const path = require('node:path');

/** Runs main() of the command line of the package in `packageDir`. */
module.exports = function launch(packageDir) {
  const built = path.join(packageDir, 'dist/cli.js');
  if (fs.existsSync(built)) return require(built).main();
  process.env.TSX_TSCONFIG_PATH ??= path.join(packageDir, '../../tsconfig.json');
  require('tsx/cjs');
  return require(path.join(packageDir, 'src/cli.ts')).main();
};
