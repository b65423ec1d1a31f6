/**
 * The dialog and the runtime agree on every default: for each node type with declared settings (its settings.ts),
 * a node saved with only its version reads exactly what a node saved with its dialog's defaults (the `defaults` of
 * its built nodes/<type>.html) reads, in the real runtime; and both read what the declaration says.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import type { Node } from 'node-red';
import { settingsOf } from '../../src/node-red/settings';
import type { NodeDeclaration } from '../../src/settings/declare';
import { defaultSettings, readSettings } from '../../src/settings/read';
import { connectionNode, helper, TENANT, useRuntime } from '../support/runtime';

const ROOT = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const TYPES = Object.keys(pkg['node-red'].nodes).filter((t) =>
  fs.existsSync(path.join(ROOT, 'src', 'nodes', t, 'settings.ts')),
);

type Rec = Record<string, unknown>;

/** The declaration a node's settings module exports. */
function declarationOf(type: string): NodeDeclaration {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- one module per node folder, found by its type
  const mod = require(path.join(ROOT, 'src', 'nodes', type, 'settings')) as Rec;
  const found = Object.values(mod).filter((v) => (v as NodeDeclaration | undefined)?.type === type);
  assert.equal(found.length, 1, `src/nodes/${type}/settings.ts exports one declaration`);
  return found[0] as NodeDeclaration;
}

/** The `value` of every default in the registration of the built nodes/<type>.html (run as the editor would). */
function dialogDefaults(type: string): Rec {
  const html = fs.readFileSync(path.join(ROOT, 'nodes', `${type}.html`), 'utf8');
  const script = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(script, `nodes/${type}.html has its registration`);
  let defaults: Record<string, { value: unknown }> | undefined;
  const D = new Proxy({}, { get: () => () => () => true });
  const sandbox = {
    TbEditor: { dialog: () => D },
    RED: { nodes: { registerType: (_t: string, def: { defaults: typeof defaults }) => (defaults = def.defaults) } },
  };
  vm.runInNewContext(script![1], sandbox);
  assert.ok(defaults, `nodes/${type}.html registers ${type}`);
  // Through JSON, as a flow saves them: an array made in the sandbox is then an array of this realm.
  return JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(defaults!).map(([k, d]) => [k, d.value])))) as Rec;
}

describe('settings: the dialog and the runtime agree on every default', function () {
  const sim = useRuntime();

  it('covers the node types that declare their settings', function () {
    assert.ok(TYPES.includes('tb-wait-until'), TYPES.join(', '));
    for (const type of ['tb-entity-query', 'tb-entity-count', 'tb-alarm-query'])
      assert.ok(TYPES.includes(type), `${type} in ${TYPES.join(', ')}`);
  });

  for (const type of TYPES) {
    it(`${type}: saved with its version only, or with its dialog's defaults, it reads the same`, async function () {
      const decl = declarationOf(type);
      const fromDialog = dialogDefaults(type);
      assert.deepEqual(Object.keys(fromDialog), Object.keys(decl.settings), 'the dialog saves every declared setting');
      assert.deepEqual(fromDialog, defaultSettings(decl), "the dialog's defaults are the declaration's");
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the node module of that folder
      const mod = require(path.join(ROOT, 'src', 'nodes', type, 'index')).default;
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the config node, for the flow nodes
      const conn = require(path.join(ROOT, 'src', 'nodes', 'tb-connection', 'index')).default;
      const config = decl.category === 'config';
      const bare = {
        id: 'bare',
        type,
        z: 't',
        version: decl.version,
        ...(config ? { url: sim.url } : { connection: 'c1' }),
      };
      const dialog = {
        ...fromDialog,
        id: 'dialog',
        type,
        z: 't',
        ...(config ? { url: sim.url } : { connection: 'c1' }),
      };
      const nodes = [{ id: 't', type: 'tab' }, ...(config ? [] : [connectionNode(sim.url)]), bare, dialog];
      await helper.load(config ? [mod] : [conn, mod], nodes as Parameters<typeof helper.load>[1], {
        c1: TENANT,
        bare: TENANT,
        dialog: TENANT,
      });
      const read = (id: string): Rec => {
        const n = helper.getNode(id) as Node | null;
        assert.ok(n, `node ${id} deployed`);
        const s = settingsOf(n!);
        assert.ok(s, `${type} reads its settings by its declaration`);
        const { id: _id, ...rest } = s as Rec;
        return rest;
      };
      const expected = readSettings(decl, {
        ...defaultSettings(decl),
        ...(config ? { url: sim.url } : { connection: 'c1' }),
      }).values;
      assert.deepEqual(read('bare'), expected);
      assert.deepEqual(read('dialog'), expected);
    });
  }
});
