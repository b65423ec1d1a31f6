// @ts-check
// ESLint: the recommended rules of eslint and typescript-eslint over the whole tree, tuned so that the code as it is
// passes; each rule turned off or loosened below says why.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // built or generated
  globalIgnores([
    'dist/',
    'resources/tb-editor.js',
    'resources/tb-query.js',
    'resources/schemas/',
    'nodes/icons/',
    'nodes/*.js',
    'bench/.build/',
    '.bench-tmp/',
    '.demo/',
    'coverage/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, globals: { ...globals.node } },
    rules: {
      // `_`-prefixed names are unused on purpose (a rest sibling left out, a parameter kept for its position).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // `const node = this` in a node's constructor is Node-RED's own idiom (the core nodes, every contrib package).
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['node', 'self'] }],
      // The typed-EventEmitter idiom: an interface of the same name as the class types its on/once/off/emit.
      '@typescript-eslint/no-unsafe-declaration-merging': 'off',
      // Control characters in a pattern are what the pattern is for (stripping them from status texts, JSON).
      'no-control-regex': 'off',
    },
  },
  {
    // CommonJS: the loader's one-line shims in nodes/, the build scripts, the benchmarks' reference nodes.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      // `const WebSocket = require('ws')` is meant to stand for Node 22's global of that name.
      'no-redeclare': ['error', { builtinGlobals: false }],
    },
  },
  {
    // The dialogs' code (bundled into resources/tb-editor.js, which is generated and not linted).
    files: ['src/editor/**/*.ts', 'src/nodes/*/editor.ts'],
    rules: {
      // Node-RED reads a validator's arity: `function (v, opt)` shows the returned message, so unused
      // parameters stay.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'none', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    languageOptions: { globals: { ...globals.mocha } },
  },
  {
    // These tests read the package's files as untyped JSON and run the editor bundle in a vm sandbox, whose
    // globals (TbEditor, TbBuilder, RED) have no types outside the browser.
    files: ['test/package.test.ts', 'test/editor/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/browser/**/*.ts'],
    rules: {
      // page.evaluate() callbacks run in the editor page, on its untyped globals (RED, $, monaco).
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
