'use strict';
// Build step: bundle the editor code (the entry below: the pure modules it shares with the runtime, the query builder
// and every node type's dialog) into resources/tb-editor.js, the one plain browser script every node's template
// includes; it defines the globals TbQuery, TbBuilder and TbEditor.
// Then writes the JSON schema of each kind of query (resources/schemas/<kind>.json), taken from that bundle's
// TbQuery.jsonSchema(mode): the schema the JSON view of the query field attaches, served with the editor resources
// (resources/node-red-contrib-thingsboard-query/schemas/...) for other editors and tools.
// The outputs are git-ignored and shipped through the "files" list.
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const bundle = path.join(root, 'resources', 'tb-editor.js');

/** Query mode -> schema file in resources/schemas/ (test/package.test.ts checks they cover every mode). */
const SCHEMA_FILES = {
  entityData: 'entity-data-query.json',
  entityCount: 'entity-count-query.json',
  alarmData: 'alarm-data-query.json',
  alarmCount: 'alarm-count-query.json',
};

/** Runs the bundle as a browser would (its global object is `window`) and writes each mode's schema. */
function writeSchemas() {
  const window = {};
  vm.createContext(window);
  window.window = window;
  vm.runInContext(fs.readFileSync(bundle, 'utf8'), window, { filename: 'tb-editor.js' });
  const dir = path.join(root, 'resources', 'schemas');
  fs.mkdirSync(dir, { recursive: true });
  for (const [mode, file] of Object.entries(SCHEMA_FILES)) {
    fs.writeFileSync(path.join(dir, file), `${JSON.stringify(window.TbQuery.jsonSchema(mode), null, 2)}\n`);
  }
}

/**
 * The bundle's entry: src/editor (TbQuery's exports, TbBuilder) and the dialog of every node folder that has one
 * (src/nodes/<type>/editor.ts), handed to TbEditor. A new node's dialog is found by its folder: no list to edit.
 */
function entry() {
  const nodes = path.join(root, 'src', 'nodes');
  const types = fs
    .readdirSync(nodes)
    .filter((t) => fs.existsSync(path.join(nodes, t, 'editor.ts')))
    .sort();
  return [
    "export * from './src/editor';",
    "import { defineDialogs } from './src/editor/tb-editor';",
    ...types.map((t, i) => `import d${i} from './src/nodes/${t}/editor';`),
    `defineDialogs([${types.map((_, i) => `d${i}`).join(', ')}]);`,
  ].join('\n');
}

esbuild
  .build({
    stdin: { contents: entry(), resolveDir: root, sourcefile: 'tb-editor-entry.ts', loader: 'ts' },
    outfile: bundle,
    bundle: true,
    format: 'iife',
    globalName: 'TbQuery',
    platform: 'browser',
    // Node-RED 3.1's supported browsers.
    target: 'es2019',
    // Readable for debugging in the browser; no source map (the sources are not shipped).
    minify: false,
    sourcemap: false,
    legalComments: 'none',
    tsconfig: path.join(root, 'tsconfig.json'),
    // Every node set of the module includes this file, so it runs several times: only the first run defines
    // the globals (a re-declared global `var` keeps its value).
    banner: {
      js:
        "/* node-red-contrib-thingsboard-query: the editor (window.TbQuery: the runtime's query module; " +
        'window.TbBuilder:\n' +
        ' * the query builder; window.TbEditor: the dialogs), bundled from src/editor by scripts/bundle-editor.js.\n' +
        ' * Generated file: do not edit. */\n' +
        'if (typeof window === "undefined" || !window.TbQuery) {',
    },
    footer: { js: '}' },
    logLevel: 'warning',
  })
  .then(writeSchemas)
  .catch((err) => {
    if (err && !err.errors) process.stderr.write(`${err.stack || err}\n`); // esbuild has printed its own errors
    process.exit(1);
  });
