import fs from 'node:fs';
import type { Devstack } from '../../src/lib/devstack';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __devstack?: Devstack }).__devstack?.stop();
  if (process.env.TEST_DATA_DIR) fs.rmSync(process.env.TEST_DATA_DIR, { recursive: true, force: true });
}
