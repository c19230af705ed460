/** `npm run test:faults`: the fault matrix. Each file starts its own engines and service processes (no shared devstack). */
// How the suite's files are compiled and resolved, as for the whole suite (ES-module-only packages made CommonJS).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config file, as Jest reads it
const { transform, transformIgnorePatterns, moduleNameMapper } = require('../../jest.config.js');

module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.fault.ts'],
  transform,
  transformIgnorePatterns,
  moduleNameMapper,
  testTimeout: 300_000,
  maxWorkers: 1,
  // The suite's own clients lived through killed peers and restarted engines; afterAll closes what it started,
  // and a socket left half-open by a killed peer must not hold CI (a run once hung after its cases had ended).
  forceExit: true,
};
