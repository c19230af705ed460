/** Jest: SWC transpiles TypeScript; one devstack (MongoDB-wire server, Temporal, Redis) is started for the whole run. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The workspace packages' sources (tsconfig.json's paths): the tests run the clients without a build.
  moduleNameMapper: { '^@lead-service/client$': '<rootDir>/packages/client/src/index.ts' },
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
