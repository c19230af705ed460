/** `npm run test:faults`: the fault matrix. Each file starts its own engines and service processes (no shared devstack). */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.fault.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
  testTimeout: 300_000,
  maxWorkers: 1,
  // The suite's own clients lived through killed peers and restarted engines; afterAll closes what it started,
  // and a socket left half-open by a killed peer must not hold CI (a run once hung after its cases had ended).
  forceExit: true,
};
