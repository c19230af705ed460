import fs from 'node:fs';
import path from 'node:path';

/** This package's name and version, from its package.json: one level above src/ (the sources) and dist/ alike. */
export const PACKAGE: { name: string; version: string } = JSON.parse(
  fs.readFileSync(path.join(__dirname, '../package.json'), 'utf8'),
);
