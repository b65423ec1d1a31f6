/**
 * The typed dialogs (src/nodes/<type>/editor.ts) in the editor bundle: every node type has one, each module is
 * registered under its own type, and what the device actions' templates offer agrees with the rules the dialogs
 * take from the runtime.
 * (test/package.test.ts runs every dialog's validators in an editor sandbox, and checks each html's registration.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { ACTION_TYPES, targetEntityTypes } from '../../src/editor/builder/action-settings';

const root = path.resolve(__dirname, '..', '..');
const NODES = path.join(root, 'src', 'nodes');

describe('typed dialogs (src/nodes/<type>/editor.ts)', function () {
  let TbEditor: { dialog(type: string): { type: string; properties: readonly string[] } };

  before(function () {
    const window: Record<string, any> = {};
    vm.createContext(window);
    window.window = window;
    vm.runInContext(fs.readFileSync(path.join(root, 'resources', 'tb-editor.js'), 'utf8'), window);
    TbEditor = window.TbEditor;
  });

  const modules = fs.readdirSync(NODES).filter((f) => fs.existsSync(path.join(NODES, f, 'editor.ts')));
  /** Every node type: the package's node map, and every html of nodes/. */
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const htmlTypes = fs
    .readdirSync(path.join(root, 'nodes'))
    .filter((f) => f.endsWith('.html'))
    .map((f) => f.replace(/\.html$/, ''));
  const types = Array.from(new Set([...Object.keys(pkg['node-red'].nodes), ...htmlTypes])).sort();

  it('every node type has its dialog in TypeScript: a module of its own, and no other module', function () {
    assert.ok(types.length > 0);
    assert.deepEqual(
      [...modules].sort(),
      types,
      'src/nodes/<type>/editor.ts for each type of package.json and nodes/*.html',
    );
  });

  it('every module is registered under its own type, and its html uses it', function () {
    assert.ok(modules.length > 0);
    for (const type of modules) {
      assert.equal(TbEditor.dialog(type).type, type, `src/nodes/${type}/editor.ts in the bundle`);
      assert.match(
        fs.readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8'),
        new RegExp(`TbEditor\\.dialog\\('${type}'\\)`),
      );
    }
    assert.throws(() => TbEditor.dialog('tb-nothing'), /no dialog for tb-nothing/);
  });

  it('the device actions offer the entity types the runtime allows them (targetEntityTypes)', function () {
    for (const type of ACTION_TYPES) {
      const html = fs.readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8');
      const select = /<select id="node-input-targetEntityType"[^>]*>([\s\S]*?)<\/select>/.exec(html);
      // tb-rpc acts on devices only: a bare id needs no type.
      if (!select) {
        assert.deepEqual([...targetEntityTypes(type)], ['DEVICE'], `${type}: no type for a bare id`);
        continue;
      }
      const options = Array.from(select[1].matchAll(/<option value="([^"]*)"/g), (m) => m[1]);
      assert.deepEqual(options, [...targetEntityTypes(type)], `${type}: the options of the id's type`);
    }
  });
});
