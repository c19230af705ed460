import fs from 'node:fs';

/** Marks every process of one test run: set by the global setup, inherited by everything the run starts. */
export const RUN_MARKER = 'LEAD_SERVICE_TEST_RUN';

interface RunProcess {
  pid: number;
  command: string;
}

const read = (pid: string, file: string) => {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null; // ended meanwhile, or not ours to read
  }
};

/**
 * The processes carrying this run's marker, but for this process, the processes it descends from and Jest's own
 * workers (which Jest ends itself): what the run started and left running. Linux (/proc), as the test machines.
 */
export function runProcesses(run: string): RunProcess[] {
  const ancestors = new Set<number>();
  for (let pid = process.pid; pid > 1;) {
    ancestors.add(pid);
    const stat = read(String(pid), 'stat');
    pid = stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : 0;
  }
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry) || ancestors.has(Number(entry))) return [];
    if (!read(entry, 'environ')?.split('\0').includes(`${RUN_MARKER}=${run}`)) return [];
    const command = (read(entry, 'cmdline') ?? '').split('\0').join(' ').trim();
    if (!command || command.includes('jest-worker')) return []; // a zombie has no command line; workers are Jest's
    return [{ pid: Number(entry), command }];
  });
}
