'use strict';
// Build step: remove what the build generates and a later build might not (a module or schema that no longer
// exists), so that dist/ and resources/schemas/ hold only this build's output and "files" ships nothing stale.
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
for (const dir of ['dist', path.join('resources', 'schemas'), path.join('nodes', 'icons')]) {
  fs.rmSync(path.join(root, dir), { recursive: true, force: true });
}
// What scripts/build-nodes.js writes into nodes/ (the help pages beside the catalogs are not generated yet).
const nodes = path.join(root, 'nodes');
if (fs.existsSync(nodes)) {
  for (const f of fs.readdirSync(nodes)) if (/\.(js|html)$/.test(f)) fs.rmSync(path.join(nodes, f));
  const en = path.join(nodes, 'locales', 'en-US');
  if (fs.existsSync(en)) for (const f of fs.readdirSync(en)) if (f.endsWith('.json')) fs.rmSync(path.join(en, f));
}
