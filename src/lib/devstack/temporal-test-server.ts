import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onPath, run, type Progress } from './binaries';

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
    <dependency><groupId>${v.group}</groupId><artifactId>${v.artifact}</artifactId><version>${v.version}</version></dependency>
  </dependencies>
</project>
`;

/** The launcher's path: `<launcher> <port>` starts the server, as @temporalio/testing's `existing-path` runs it. */
export async function temporalTestServer(cacheDir: string, progress: Progress): Promise<string> {
  const { version } = TEMPORAL_TEST_SERVER;
  const launcher = path.join(cacheDir, 'bin', `temporal-test-server-${version}`);
  if (fs.existsSync(launcher)) return launcher;
  const mvn = onPath('mvn');
  const java = onPath('java');
  if (!mvn || !java) throw new Error('the time-skipping test server needs Java and Maven on PATH (Debian: apt-get install default-jre-headless maven)');
  const lib = `${launcher}.lib`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-test-server-'));
  const started = Date.now();
  progress(`fetching Temporal's time-skipping test server ${version} with Maven (first time only)…`);
  try {
    fs.writeFileSync(path.join(work, 'pom.xml'), pom(TEMPORAL_TEST_SERVER));
    fs.rmSync(`${lib}.partial`, { recursive: true, force: true });
    await run(mvn, [
      '-q', '-B', `-Dmaven.repo.local=${path.join(cacheDir, 'maven')}`, 'dependency:copy-dependencies',
      '-DincludeScope=runtime', `-DoutputDirectory=${lib}.partial`,
    ], { cwd: work, progress, label: 'fetching the Temporal test server' });
    fs.rmSync(lib, { recursive: true, force: true });
    fs.renameSync(`${lib}.partial`, lib);
    fs.writeFileSync(`${launcher}.partial`, `#!/bin/sh\nexec "${java}" -cp "${lib}/*" io.temporal.testserver.TestServer "$@"\n`, { mode: 0o755 });
    fs.renameSync(`${launcher}.partial`, launcher);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  progress(`fetched the Temporal test server in ${Math.round((Date.now() - started) / 1000)}s -> ${launcher}`);
  return launcher;
}
