import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Progress = (message: string) => void;

/** The absolute path of a command on PATH, if any. */
export function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

export function run(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; progress: Progress; label: string },
) {
  return new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const ticker = setInterval(
      () => opts.progress(`${opts.label}: still working (${Math.round((Date.now() - started) / 1000)}s)`),
      30_000,
    );
    child.on('error', (err) => {
      clearInterval(ticker);
      reject(err);
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new Error(`${opts.label} failed (exit ${code}):\n${tail}`));
    });
  });
}

export interface GoBuild {
  binary: string;
  module: string;
  /** The main package, relative to the module root. */
  cmd: string;
  version: string;
  usualMinutes: string;
  /** Files written into the source before the build: what its release tooling would generate. */
  generated?: Record<string, string>;
  /** Unified diffs applied in order to the module's source before the build (`git apply`: whole or not at all). */
  patches?: string[];
  /** The cached binary's file name (a patched build must not be confused with a plain one). */
  cacheName?: string;
  /** Go build tags (`go build -tags`). */
  tags?: string[];
}

export const TEMPORAL_BUILD: GoBuild = {
  binary: 'temporal',
  module: 'github.com/temporalio/cli',
  cmd: './cmd/temporal',
  version: 'v1.5.1',
  usualMinutes: '3 to 6',
};

/**
 * Prometheus's promtool, for the tests that check compose's Prometheus configuration and alert rules
 * (test/deploy/prometheus.test.ts): `check config`, `check rules` and the rules' unit tests. Prometheus 3.16's
 * (module versions v0.3NN.x are releases 3.NN.x); compose runs the 3.5 LTS server, and the rules use nothing newer.
 * Built with DNS service discovery only (what compose's configuration uses; file and HTTP discovery are always in),
 * which leaves the cloud providers' and Kubernetes' SDKs, most of its dependencies, out of the build.
 */
export const PROMTOOL_BUILD: GoBuild = {
  binary: 'promtool',
  module: 'github.com/prometheus/prometheus',
  cmd: './cmd/promtool',
  version: 'v0.316.0',
  usualMinutes: '2 to 5',
  cacheName: 'promtool-v0.316.0-dns-sd',
  tags: ['remove_all_sd', 'enable_dns_sd'],
};

/**
 * Builds a Go command into the cache once and reuses it. It builds from the module's own source,
 * fetched at the exact version through the Go module proxy, rather than with `go install pkg@version`:
 * that form also asks the proxy for the version list, which some proxies refuse, and it cannot
 * write the files a release build generates.
 */
export async function goBuild(spec: GoBuild, binDir: string, progress: Progress): Promise<string> {
  const target = path.join(binDir, spec.cacheName ?? spec.binary);
  if (fs.existsSync(target)) return target;
  const go = onPath('go');
  if (!go) throw new Error(`cannot build ${spec.binary}: Go is not on PATH`);
  fs.mkdirSync(binDir, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `build-${spec.binary}-`));
  const started = Date.now();
  const usually = `usually ${spec.usualMinutes} minutes`;
  progress(`building ${spec.binary} ${spec.version} with Go (first time only; ${usually})…`);
  try {
    const download = execFileSync(go, ['mod', 'download', '-json', `${spec.module}@${spec.version}`], {
      cwd: work,
      encoding: 'utf8',
      timeout: 600_000,
    });
    const source = path.join(work, 'src');
    fs.cpSync(JSON.parse(download).Dir, source, { recursive: true });
    // The module cache's copy is read-only; the patches and generated files rewrite it.
    execFileSync('chmod', ['-R', 'u+w', source]);
    for (const [file, content] of Object.entries(spec.generated ?? {})) {
      const dest = path.join(source, file);
      fs.rmSync(dest, { force: true });
      fs.writeFileSync(dest, content);
    }
    for (const patch of spec.patches ?? []) applyPatch(source, patch);
    const tags = spec.tags?.length ? ['-tags', spec.tags.join(',')] : [];
    await run(go, ['build', ...tags, '-o', `${target}.partial`, spec.cmd], {
      cwd: source,
      // The module alone: a go.work of the repository (Prometheus has one) names folders its module lacks.
      env: { GOWORK: 'off' },
      progress,
      label: `building ${spec.binary}`,
    });
    fs.renameSync(`${target}.partial`, target);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  progress(`built ${spec.binary} in ${Math.round((Date.now() - started) / 1000)}s -> ${target}`);
  return target;
}

/**
 * Applies a unified diff to a module's source with `git apply`, which takes it whole or refuses it (no fuzz): a
 * patch that no longer matches its source stops the build. The source is no repository; git must not look for one
 * above it (the temporary directory could sit inside one).
 */
export function applyPatch(root: string, patch: string): void {
  try {
    execFileSync('git', ['apply', '--whitespace=nowarn', patch], {
      cwd: root,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(root) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (err) {
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '').trim();
    throw new Error(`patch ${path.basename(patch)} does not apply to its source: ${stderr}`, { cause: err });
  }
}
