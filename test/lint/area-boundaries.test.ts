import { execFileSync } from 'node:child_process';
import path from 'node:path';

const REFUSED: [string, string][] = [
  ['src/activity/example.ts', "import { ClientModel } from '../clients/client.model';"],
  ['src/activity/example.ts', "import type { UserDoc } from '../users/user.model';"], // types too
  ['src/pins/signup/example.ts', "import { UserModel } from '../../users/user.model';"],
  ['src/pins/search/example.ts', "import { JobModel } from '../../jobs/job.model';"],
  ['src/services.ts', "import { PinModel } from './pins/pin.model';"],
  ['activities/example.ts', "import { JobModel } from '../src/jobs/job.model';"],
  ['workflows/example.ts', "import type { JobDoc } from '../src/jobs/job.model';"],
];
const ALLOWED: [string, string][] = [
  ['src/clients/example.ts', "import { ClientModel } from './client.model';"],
  ['src/pins/search/example.ts', "import { PinModel } from '../pin.model';"],
  ['src/pins/signup/example.ts', "import { ReservationModel } from '../reservation.model';"],
  ['src/activity/example.ts', "import { clientDirectory } from '../clients/client-directory';"],
  ['activities/example.ts', "import { jobItems } from '../src/jobs/job-records';"],
  ['test/example.test.ts', "import { ClientModel } from '../src/clients/client.model';"], // tests may
];

describe("the lint rule that keeps each area's models its own", () => {
  // The repository's ESLint configuration, run by ESLint itself on each snippet as the file named beside it.
  let findings: string[][];
  beforeAll(() => {
    const snippets = [...REFUSED, ...ALLOWED].map(([filePath, code]) => ({ filePath, code }));
    const out = execFileSync(process.execPath, [path.join(__dirname, 'lint-snippets.mjs')], {
      input: JSON.stringify(snippets),
    });
    findings = JSON.parse(String(out));
  }, 60_000);

  it.each(REFUSED.map((c, i) => [...c, i] as const))('refuses in %s: %s', (_file, _code, i) => {
    expect(findings[i]).toEqual([expect.stringContaining("another area's records")]);
  });

  it.each(ALLOWED.map((c, i) => [...c, REFUSED.length + i] as const))('lets %s: %s', (_file, _code, i) => {
    expect(findings[i]).toEqual([]);
  });
});
