/** Jest: SWC transpiles TypeScript; one devstack (MongoDB-wire server, Temporal, Redis) is started for the whole run. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The workspace packages' sources (tsconfig.json's paths): the tests run the clients without a build.
  moduleNameMapper: { '^@lead-service/client$': '<rootDir>/packages/client/src/index.ts' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
    // These ship only ES modules (eventsource 5, the eventsource-parser it brings, meilisearch 0.57+). Node loads them
    // with require() (as the service and the built client do), Jest's module registry only under
    // --experimental-vm-modules: SWC makes them CommonJS here.
    '/node_modules/(eventsource|eventsource-parser|meilisearch)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(eventsource|eventsource-parser|meilisearch)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  // A worker keeps much of what every test file it ran loaded: by the 85th of ~140 files the two workers' RSS was 2.7
  // and 3.5 GB, and the test that forces collections (the media test's 50 MB stream, one every 5 MB) took 90 s instead
  // of 24 s and ran past its minute. A worker whose heap is past this after a file is replaced before the next one.
  workerIdleMemoryLimit: '1GB',
};
