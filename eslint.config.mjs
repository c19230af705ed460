// Lint: typescript-eslint's recommended rules everywhere, eslint-plugin-regexp's recommended rules (every one an
// error: a pattern that can backtrack super-linearly stalls a process on one hostile input), plus the determinism
// rule for workflows/: workflow code is replayed, so it must not touch Node built-ins, the clock, randomness or I/O.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import regexp from 'eslint-plugin-regexp';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'packages/*/dist/**', '.data/**', 'coverage/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  regexp.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      ...Object.fromEntries(
        Object.entries(regexp.configs['flat/recommended'].rules)
          .filter(([rule, level]) => rule.startsWith('regexp/') && level !== 'off')
          .map(([rule]) => [rule, 'error']),
      ),
      'regexp/no-super-linear-move': 'error',
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
