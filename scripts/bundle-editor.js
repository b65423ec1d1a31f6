'use strict';
// Build step: bundle the editor's query module and builder (src/editor/tb-query.ts, which pulls in the runtime's
// own src/query modules and src/editor/builder) into resources/tb-query.js, a plain browser script that defines
// the globals TbQuery and TbBuilder.
// The output is git-ignored and shipped through the "files" list (resources/).
const path = require('path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');

esbuild
  .build({
    entryPoints: [path.join(root, 'src', 'editor', 'tb-query.ts')],
    outfile: path.join(root, 'resources', 'tb-query.js'),
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
        '/* node-red-contrib-thingsboard-query: the query builder (window.TbQuery: the runtime\'s query module;\n' +
        ' * window.TbBuilder: the dialogs), bundled from src/ by scripts/bundle-editor.js. Generated file: do not edit. */\n' +
        'if (typeof window === "undefined" || !window.TbQuery) {',
    },
    footer: { js: '}' },
    logLevel: 'warning',
  })
  .catch(() => process.exit(1));
