// Lint: typescript-eslint's recommended rules everywhere, plus the determinism rule for workflows/:
// workflow code is replayed, so it must not touch Node built-ins, the clock, randomness or I/O directly.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'packages/*/dist/**', '.data/**', 'coverage/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'workflows/ must stay deterministic: do this in an activity.',
          })),
          patterns: [
            {
              regex: '^\\.\\./(src|activities)(/|$)',
              allowTypeImports: true,
              message: 'workflows/ may import activities and services as types only.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'use sleep() from @temporalio/workflow' },
        { name: 'setInterval', message: 'use sleep() from @temporalio/workflow' },
        { name: 'process', message: 'workflows/ must not read the environment' },
        { name: 'fetch', message: 'I/O belongs in an activity' },
      ],
    },
  },
);
