'use strict';
// Build step: put what Node-RED's loader needs where it looks for it (beside nodes/*.js).
// Icons are kept in ./icons (the layout's place); the loader only scans nodes/icons.
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const from = path.join(root, 'icons');
const to = path.join(root, 'nodes', 'icons');
fs.mkdirSync(to, { recursive: true });
for (const f of fs.readdirSync(from)) {
  if (f.endsWith('.svg') || f.endsWith('.png')) fs.copyFileSync(path.join(from, f), path.join(to, f));
}
