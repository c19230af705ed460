// Lint: typescript-eslint's recommended rules everywhere, eslint-plugin-regexp's recommended rules (every one an
// error: a pattern that can backtrack super-linearly stalls a process on one hostile input), plus the determinism
// rule for workflows/: workflow code is replayed, so it must not touch Node built-ins, the clock, randomness or I/O;
// and the areas' boundary: each folder of src/ owns its *.model files (docs/architecture.md, section 2).
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import regexp from 'eslint-plugin-regexp';
import reactHooks from 'eslint-plugin-react-hooks';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * An area (a folder of src/) owns its models: only its own files import its `*.model` files; another area reads
 * those records through what the owner exports (its service, a directory or figures file), never the model.
 * activities/, workflows/ and the files at the root of src/ belong to no area, so they import no model at all.
 * Tests and benchmarks may import any model: they set up and look at stored state, which is what they are for.
 * The rule is generated per folder, since a relative import's target depends on how deep its file sits.
 */
const MODEL = '[^/]+\\.model(\\.ts)?$';
const MODEL_MESSAGE =
  "another area's records are read through what it exports (its service, directory or figures), not its model";
const root = path.dirname(fileURLToPath(import.meta.url));
const folders = (dir) => [
  dir,
  ...fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => folders(path.posix.join(dir, entry.name))),
];
const noModelImports = (files, patterns) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: patterns.map((regex) => ({ regex, message: MODEL_MESSAGE })) }],
  },
});
const areaBoundaries = fs
  .readdirSync(path.join(root, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((area) =>
    folders(path.posix.join('src', area.name)).map((folder) => {
      const toSrc = '\\.\\./'.repeat(folder.split('/').length - 1); // from this folder up to src/
      return noModelImports(
        [`${folder}/*.ts`],
        [`^${toSrc}(?!${area.name}/)[^/]+/(.+/)?${MODEL}`, `^${toSrc}\\.\\./.*${MODEL}`],
      );
    }),
  );

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'packages/*/dist/**',
      'console/dist/**',
      'test-results/**',
      '.data/**',
      'coverage/**',
      '.scratch/**',
    ],
  },
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
  // The service's own code types what it reads (the contract's types, unknown checked where read): no explicit any.
  {
    files: ['src/**/*.ts', 'workflows/**/*.ts', 'activities/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  ...areaBoundaries,
  noModelImports(['src/*.ts'], [`^\\./(.+/)?${MODEL}`]),
  noModelImports(['activities/**/*.ts'], [`^\\.\\./src/(.+/)?${MODEL}`]),
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
            { regex: `^\\.\\./src/(.+/)?${MODEL}`, message: MODEL_MESSAGE }, // not even as types
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
  // The console runs in the browser (console/src): its globals, and React's rules of hooks.
  {
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    // incompatible-library speaks to the React Compiler, which the console does not use (TanStack Table's hooks).
    rules: { ...reactHooks.configs.recommended.rules, 'react-hooks/incompatible-library': 'off' },
  },
);
