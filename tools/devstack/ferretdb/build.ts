import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { GoBuild } from '../binaries';

const VERSION = 'v1.24.2';

/**
 * The fixes the devstack's document engine needs, one unified diff each against FerretDB's released source, applied
 * in the order of their names (`git apply`, which takes a patch whole or not at all). Each opens with its reason and
 * its upstream issue. v1 is no longer maintained upstream (v2 is a rewrite on PostgreSQL), so they live here.
 * Production runs MongoDB and none of this applies there.
 */
export const FERRETDB_PATCH_DIR = path.join(__dirname, 'patches');

/** The patch files of a directory, in the order they apply. */
export function patchFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.patch'))
    .sort()
    .map((name) => path.join(dir, name));
}

/**
 * The cached binary's file name: the version and a digest of the patches (names and contents), so a machine that
 * built before a patch changed builds again instead of running the old binary.
 */
export function ferretdbCacheName(patches: string[]): string {
  const digest = createHash('sha256');
  for (const file of patches)
    digest
      .update(`${path.basename(file)}\0`)
      .update(fs.readFileSync(file))
      .update('\0');
  return `ferretdb-${VERSION}-${digest.digest('hex').slice(0, 12)}`;
}

/** FerretDB 1.24.2 (SQLite backend) as the devstack builds it: the released source with the patches above. */
export function ferretdbBuild(patchDir = FERRETDB_PATCH_DIR): GoBuild {
  const patches = patchFiles(patchDir);
  return {
    binary: 'ferretdb',
    module: 'github.com/FerretDB/FerretDB',
    cmd: './cmd/ferretdb',
    version: VERSION,
    usualMinutes: '2 to 5',
    cacheName: ferretdbCacheName(patches),
    // FerretDB refuses to start without its version file, which its release tooling normally writes.
    generated: { 'build/version/version.txt': `${VERSION}\n` },
    patches,
  };
}
