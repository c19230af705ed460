import { setTimeout as sleep } from 'node:timers/promises';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { onPath, run, type Progress } from './binaries';
import { canConnect, freePort } from './ports';

/**
 * Temporal's time-skipping test server (the Java SDK's `temporal-test-server`), for workflow tests that
 * wait out hours in milliseconds. @temporalio/testing would download a native build of it, which this
 * machine cannot; the same server is published to Maven Central, so Maven fetches it (once, into the
 * cache) and a small launcher runs it on the JVM. Tests only: the service never runs it.
 */
export const TEMPORAL_TEST_SERVER = { group: 'io.temporal', artifact: 'temporal-test-server', version: '1.32.1' };

const pom = (v: typeof TEMPORAL_TEST_SERVER) => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.lead-service</groupId><artifactId>temporal-test-server-fetch</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>${v.group}</groupId><artifactId>${v.artifact}</artifactId><version>${v.version}</version>
    </dependency>
  </dependencies>
</project>
`;

/** Work in progress is written under a name of this process, so two test workers preparing at once do not mix. */
const partial = `.partial-${process.pid}`;

/**
 * The launcher's path: `<launcher> <port>` starts the server, as @temporalio/testing's `existing-path` runs
 * it. The SDK gives it 5 s to answer; the JVM's class loading alone took longer on a loaded two-core
 * machine, so the launcher maps a class-data archive of the server's classes (AppCDS), made once here:
 * 0.3 s and 0.4 CPU-seconds to a listening server instead of 0.9 s and 1.4.
 */
export async function temporalTestServer(cacheDir: string, progress: Progress): Promise<string> {
  const base = serverBase(cacheDir);
  const launcher = launcherOf(base);
  if (fs.existsSync(launcher)) return launcher;
  const java = onPath('java');
  if (!java)
    throw new Error(
      'the time-skipping test server needs Java and Maven on PATH (Debian: apt-get install default-jre-headless maven)',
    );
  const lib = `${base}.lib`;
  if (!fs.existsSync(lib)) await fetchServer(cacheDir, lib, progress);
  const classPath = `${lib}/*`;
  const archive = `${base}.jsa`;
  const archived = await (fs.existsSync(archive) ? Promise.resolve() : archiveClasses(java, classPath, archive)).then(
    () => true,
    (err: Error) => {
      progress(`no class-data archive for the Temporal test server (${err.message}); it starts without one`);
      return false;
    },
  );
  const share = archived ? `-XX:SharedArchiveFile="${archive}" -Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off ` : '';
  // C1 only and the serial collector: less JIT and GC work competing with the tests for two cores.
  const jvmFlags = `${share}-XX:TieredStopAtLevel=1 -XX:+UseSerialGC`;
  // The pid (the JVM's, after exec) goes where the starter asks: a start the SDK gave up on leaves its JVM running,
  // and only the starter can end it then (test/support/time-skipping.ts).
  const script =
    `#!/bin/sh\n[ -n "$${TEST_SERVER_PID_FILE}" ] && echo $$ >> "$${TEST_SERVER_PID_FILE}"\n` +
    `exec "${java}" ${jvmFlags} -cp "${classPath}" io.temporal.testserver.TestServer "$@"\n`;
  fs.writeFileSync(`${launcher}${partial}`, script, { mode: 0o755 });
  fs.renameSync(`${launcher}${partial}`, launcher);
  return launcher;
}

const serverBase = (cacheDir: string) =>
  path.join(cacheDir, 'bin', `temporal-test-server-${TEMPORAL_TEST_SERVER.version}`);
/** The launcher's name says what it does: `-pid` records its pid (see TEST_SERVER_PID_FILE). */
const launcherOf = (base: string) => `${base}-cds-pid`;

/** The variable naming the file a launched server appends its pid to, when set. */
export const TEST_SERVER_PID_FILE = 'TEMPORAL_TEST_SERVER_PID_FILE';

/** Whether the launcher is made (and `temporalTestServer` returns at once). */
export const testServerReady = (cacheDir: string) => fs.existsSync(launcherOf(serverBase(cacheDir)));

/** Maven fetches the server and its dependencies into `lib` (once). */
async function fetchServer(cacheDir: string, lib: string, progress: Progress): Promise<void> {
  const mvn = onPath('mvn');
  if (!mvn)
    throw new Error(
      'the time-skipping test server needs Java and Maven on PATH (Debian: apt-get install default-jre-headless maven)',
    );
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-test-server-'));
  const started = Date.now();
  progress(
    `fetching Temporal's time-skipping test server ${TEMPORAL_TEST_SERVER.version} with Maven (first time only)…`,
  );
  try {
    fs.writeFileSync(path.join(work, 'pom.xml'), pom(TEMPORAL_TEST_SERVER));
    await run(
      mvn,
      [
        '-q',
        '-B',
        `-Dmaven.repo.local=${path.join(cacheDir, 'maven')}`,
        'dependency:copy-dependencies',
        '-DincludeScope=runtime',
        `-DoutputDirectory=${lib}${partial}`,
      ],
      { cwd: work, progress, label: 'fetching the Temporal test server' },
    );
    if (!fs.existsSync(lib)) fs.renameSync(`${lib}${partial}`, lib); // else another process was first
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(`${lib}${partial}`, { recursive: true, force: true });
  }
  progress(`fetched the Temporal test server in ${Math.round((Date.now() - started) / 1000)}s -> ${lib}`);
}

/** Runs the server until it listens, then stops it; the JVM writes the classes it loaded to `archive` as it exits. */
async function archiveClasses(java: string, classPath: string, archive: string): Promise<void> {
  const port = await freePort();
  const server = spawn(
    java,
    [
      `-XX:ArchiveClassesAtExit=${archive}${partial}`,
      '-cp',
      classPath,
      'io.temporal.testserver.TestServer',
      String(port),
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  try {
    const deadline = Date.now() + 60_000;
    while (!(await canConnect(port))) {
      if (server.exitCode !== null || Date.now() > deadline) throw new Error('the server did not listen');
      await sleep(100);
    }
  } finally {
    server.kill('SIGTERM');
    await exited;
  }
  if (!fs.existsSync(`${archive}${partial}`)) throw new Error('the JVM wrote no archive');
  fs.renameSync(`${archive}${partial}`, archive);
}
