import { Writable } from 'node:stream';

/** A log destination for a test's service that keeps every line the service writes, parsed (pino writes JSON). */
export function capturedLogs() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}
