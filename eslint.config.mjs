// @ts-check
// ESLint: the recommended rules of eslint and typescript-eslint over the whole tree, tuned so that the code as it is
// passes; each rule turned off or loosened below says why. Beside them, the house rules: imports ordered, no import
// circle, an import only points down (the rooms of src/ and their floors, below), no promise left floating.
import fs from 'node:fs';
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import { defineConfig, globalIgnores } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The rooms of src/, from the ground up: a room may import its own files and the rooms below it, never one above
 * (CONTRIBUTING.md, "The rooms and their order"). Each entry: the room and the rooms it must not import.
 */
const RUNTIME = ['src/platform', 'src/live', 'src/analytics', 'src/admin', 'src/node-red', 'src/families'];
const ABOVE_SETTINGS = ['src/query-model', ...RUNTIME, 'src/editor', 'src/nodes'];
const NODE_TYPES = fs.readdirSync('src/nodes').filter((f) => fs.statSync(`src/nodes/${f}`).isDirectory());
const LAYERS = [
  ['src/errors.ts', ['src/protocol', 'src/settings', ...ABOVE_SETTINGS]],
  ['src/protocol', ['src/settings', ...ABOVE_SETTINGS]],
  ['src/settings', ABOVE_SETTINGS],
  ['src/query-model', [...RUNTIME, 'src/editor', 'src/nodes']],
  [
    'src/platform',
    ['src/live', 'src/analytics', 'src/admin', 'src/node-red', 'src/families', 'src/editor', 'src/nodes'],
  ],
  ['src/live', ['src/analytics', 'src/admin', 'src/node-red', 'src/families', 'src/editor', 'src/nodes']],
  ['src/analytics', ['src/live', 'src/admin', 'src/node-red', 'src/families', 'src/editor', 'src/nodes']],
  ['src/admin', ['src/live', 'src/analytics', 'src/node-red', 'src/families', 'src/editor', 'src/nodes']],
  ['src/node-red', ['src/families', 'src/editor', 'src/nodes']],
  ['src/families', ['src/editor', 'src/nodes']],
  // The editor (bundled for the browser) stands on the protocol core and the settings, beside the runtime.
  ['src/editor', [...RUNTIME, 'src/nodes']],
  // A node's dialog runs in the browser; its pure parts (logic, settings, migrations, label) in both.
  ['src/nodes/*/editor.ts', RUNTIME],
  ['src/nodes/*/@(logic|settings|migrations|label).ts', [...RUNTIME, 'src/editor']],
];
const zones = [
  ...LAYERS.flatMap(([target, from]) => from.map((f) => ({ target, from: f }))),
  // A node's folder is its own: what two nodes share lives in a shared room.
  ...NODE_TYPES.map((t) => ({ target: `src/nodes/${t}`, from: 'src/nodes', except: [`./${t}`] })),
  // The simulator is a second, independent reading of the server: it shares no code with the package.
  { target: 'sim', from: 'src' },
  { target: 'src', from: ['sim', 'test', 'bench', 'scripts'] },
];

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
    // Prettier breaks code at 120 but never a comment: the linter holds comments to the same width, so a line
    // shows whole in a side-by-side diff. A string is left whole (a test title, a message, CSS: one can search for
    // it), and so are a URL and a regular expression.
    plugins: { '@stylistic': stylistic },
    rules: {
      '@stylistic/max-len': [
        'error',
        {
          code: 120,
          tabWidth: 2,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
        },
      ],
    },
  },
  {
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })] },
    rules: {
      'import-x/order': [
        'error',
        {
          groups: ['builtin', 'external', 'internal', 'parent', 'sibling', 'index'],
          'newlines-between': 'never',
          alphabetize: { order: 'asc', caseInsensitive: true },
        },
      ],
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones }],
    },
  },
  {
    // Type-aware rules: a promise nobody awaits or catches is a rejection nobody sees.
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './tsconfig.editor.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
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
