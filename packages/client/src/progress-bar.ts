import type { JobState } from './jobs';

const WIDTH = 30;

/** `[##########····················]  12/36  processing  job.started` */
export function progressLine(state: JobState, eventName?: string): string {
  const { done, total } = state.job.progress;
  const filled = total ? Math.min(WIDTH, Math.round((done / total) * WIDTH)) : 0;
  const bar = `[${'#'.repeat(filled)}${'·'.repeat(WIDTH - filled)}]`;
  return [bar, `${done}/${total || '?'}`, state.job.status, eventName].filter(Boolean).join('  ');
}

/**
 * Draws the bar in place on a terminal; elsewhere (a pipe, a log file) each change is a line of its own, so the
 * output stays readable.
 */
export function progressBar(out: NodeJS.WriteStream) {
  let last = '';
  return {
    update(state: JobState, eventName?: string) {
      const line = progressLine(state, eventName);
      if (line === last) return;
      last = line;
      if (out.isTTY) out.write(`\r${line}\x1b[K`);
      else out.write(`${line}\n`);
    },
    end() {
      if (out.isTTY && last) out.write('\n');
    },
  };
}
