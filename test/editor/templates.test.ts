/**
 * The dialog templates against the declared settings: every select of a template holds a declared setting, and the
 * select of a choice offers exactly the values the declaration allows (the options are the one place the template
 * repeats a list, for Node-RED fills the select before the dialog's code runs).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { NodeDeclaration } from '../../src/settings/declare';

const ROOT = path.join(__dirname, '..', '..');
const NODES = path.join(ROOT, 'src', 'nodes');
const TYPES = fs.readdirSync(NODES).filter((t) => fs.existsSync(path.join(NODES, t, 'settings.ts')));

function declarationOf(type: string): NodeDeclaration {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the settings module of that node's folder
  const mod = require(path.join(NODES, type, 'settings')) as Record<string, unknown>;
  return Object.values(mod).find((v) => (v as NodeDeclaration | undefined)?.type === type) as NodeDeclaration;
}

/** The selects of a template: the property each holds and the values of its options. */
function selects(html: string, prefix: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const re = new RegExp(`<select[^>]*\\bid="${prefix}([\\w]+)"[^>]*>([\\s\\S]*?)</select>`, 'g');
  for (const m of html.matchAll(re)) {
    out.set(
      m[1],
      Array.from(m[2].matchAll(/<option[^>]*\bvalue="([^"]*)"/g), (o) => o[1]),
    );
  }
  return out;
}

describe('dialog templates against the declared settings', function () {
  it('covers every node type', function () {
    assert.equal(TYPES.length, fs.readdirSync(NODES).length, 'every node folder declares its settings');
  });

  for (const type of TYPES) {
    it(`${type}: each select of a choice offers exactly its declared values`, function () {
      const decl = declarationOf(type);
      const prefix = decl.category === 'config' ? 'node-config-input-' : 'node-input-';
      const html = fs.readFileSync(path.join(NODES, type, 'editor.html'), 'utf8');
      let checked = 0;
      for (const [prop, options] of selects(html, prefix)) {
        const s = decl.settings[prop];
        assert.ok(s, `#${prefix}${prop} is a declared setting`);
        // A select the dialog's code fills (no option in the template) has nothing to repeat.
        if (s.kind !== 'choice' || options.length === 0) continue;
        const offered = options.filter((v) => v !== '');
        const allowed = s.values.filter((v) => v !== '');
        assert.deepEqual([...offered].sort(), [...allowed].sort(), `the options of ${prop}`);
        checked++;
      }
      assert.ok(checked > 0 || ![...selects(html, prefix).keys()].length, 'its selects are checked');
    });
  }
});
