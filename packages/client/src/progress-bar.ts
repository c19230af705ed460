import type { JobState } from './jobs';
import { terminalSafe } from './terminal-text';

const WIDTH = 30;

/** `[##########····················]  12/36  processing  job.started` */
export function progressLine(state: JobState, eventName?: string): string {
  const { done, total } = state.job.progress;
  const filled = total ? Math.min(WIDTH, Math.round((done / total) * WIDTH)) : 0;
  const bar = `[${'#'.repeat(filled)}${'·'.repeat(WIDTH - filled)}]`;
  // The status and the event's name are the service's: terminal-safe, as they go between the bar's own controls.
  const told = [state.job.status, eventName].filter(Boolean).map((text) => terminalSafe(String(text)));
  return [bar, `${done}/${total || '?'}`, ...told].join('  ');
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
