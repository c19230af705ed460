#!/usr/bin/env node
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS launcher, run by node as it is */
require('./launch.cjs')(require('node:path').join(__dirname, '..'));
