import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FERRETDB_PATCH_DIR, ferretdbBuild, patchFiles } from '../../tools/devstack/ferretdb/build';

/** The devstack's FerretDB: the released source and patch files (tools/devstack/ferretdb/patches). */
describe('the FerretDB build', () => {
  const patches = patchFiles(FERRETDB_PATCH_DIR);

  it('applies every patch file of its folder, in the order of their names', () => {
    expect(patches.length).toBeGreaterThan(0);
    expect(ferretdbBuild().patches).toEqual(patches);
    expect(patches.map((p) => path.basename(p))).toEqual(
      fs
        .readdirSync(FERRETDB_PATCH_DIR)
        .filter((name) => name.endsWith('.patch'))
        .sort(),
    );
  });

  it.each(patches.map((p) => [path.basename(p), p]))(
    '%s opens with its one-line reason and its upstream issue, then a diff',
    (_name, file) => {
      const [reason, upstream] = fs.readFileSync(file, 'utf8').split('\n');
      expect(reason).toMatch(/^Reason: \S.{10,}$/);
      expect(upstream).toMatch(
        /^Upstream: (https:\/\/github\.com\/FerretDB\/FerretDB\/(issues|pull)\/\d+|no upstream issue found)/,
      );
      expect(fs.readFileSync(file, 'utf8')).toMatch(/^diff --git a\/\S+ b\/\S+$/m);
    },
  );

  describe('its cached binary is named after its patches, so a machine with an older binary builds again', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferretdb-patches-'));
      for (const p of patches) fs.copyFileSync(p, path.join(dir, path.basename(p)));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('the same patches, the same name', () => {
      expect(ferretdbBuild(dir).cacheName).toBe(ferretdbBuild().cacheName);
      expect(ferretdbBuild().cacheName).toMatch(/^ferretdb-v1\.24\.2-[0-9a-f]{12}$/);
    });

    it('a patch changed, added or removed, another name', () => {
      const before = ferretdbBuild(dir).cacheName;
      const first = path.join(dir, path.basename(patches[0]));
      fs.appendFileSync(first, ' ');
      const changed = ferretdbBuild(dir).cacheName;
      expect(changed).not.toBe(before);
      fs.writeFileSync(path.join(dir, '9999-another.patch'), 'Reason: another fix\n');
      const added = ferretdbBuild(dir).cacheName;
      expect(added).not.toBe(changed);
      fs.rmSync(first);
      expect(ferretdbBuild(dir).cacheName).not.toBe(added);
    });
  });
});
