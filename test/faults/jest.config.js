/** `npm run test:faults`: the fault matrix. Each file starts its own engines and service processes (no shared devstack). */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/test/faults'],
  testMatch: ['**/*.fault.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
  testTimeout: 300_000,
  maxWorkers: 1,
};
