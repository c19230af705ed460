#!/usr/bin/env node
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS launcher, run by node as it is */
// The client package's launcher (a dependency of this package) starts this package's command line.
require('@lead-service/client/bin/launch.cjs')(require('node:path').join(__dirname, '..'));
