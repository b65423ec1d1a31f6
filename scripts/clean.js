'use strict';
// Build step: remove what the build generates and a later build might not (a module or schema that no longer
// exists), so that dist/ and resources/schemas/ hold only this build's output and "files" ships nothing stale.
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
for (const dir of ['dist', path.join('resources', 'schemas'), 'nodes']) {
  fs.rmSync(path.join(root, dir), { recursive: true, force: true });
}
