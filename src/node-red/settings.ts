/**
 * A flow node's settings as it reads them at deploy: what it saved, brought up to date by its migrations, read by its
 * declaration. What a node read is kept beside it, for the tests that hold the dialog and the runtime together.
 */
import type { Node, NodeAPI } from 'node-red';
import { catalogKey, type LabelOf, type NodeDeclaration, type SavedSettings } from '../settings/declare';
import { migrate, type Migration } from '../settings/migrate';
import { readSettings, type ReadSettings } from '../settings/read';

const read = new WeakMap<Node, Record<string, unknown>>();

/**
 * The node's settings: migrated, then read (a problem names the setting; its value is then the default). With
 * `naming`, a node without a name takes its label as its name in the runtime (`labelUnnamed`).
 */
export function nodeSettings<D extends NodeDeclaration>(
  node: Node,
  decl: D,
  migrations: readonly Migration[],
  saved: object,
  naming?: { RED: NodeAPI; label: LabelOf },
): ReadSettings<D['settings']> {
  const r = readSettings(decl, migrate(decl, migrations, saved as Record<string, unknown>));
  read.set(node, r.values);
  if (naming) labelUnnamed(naming.RED, node, decl.type, r.values, naming.label);
  return r;
}

/** What a node read from its settings at deploy (undefined for a node that reads none this way). */
export function settingsOf(node: Node): Readonly<Record<string, unknown>> | undefined {
  return read.get(node);
}

/**
 * A node without a name takes its label (as the editor draws it on the canvas, from the same settings) as its name in
 * the runtime: Node-RED names a node by it in the log, in the debug sidebar ("node: save attributes" rather than its
 * id) and in what a Catch or Status node gets (`msg.error.source.name`). Only the running node's: the flow as saved,
 * and so the editor's, keep no name.
 */
function labelUnnamed(RED: NodeAPI, node: Node, type: string, values: SavedSettings, label: LabelOf): void {
  if (node.name) return;
  try {
    const text = label(values, (key, vars) => RED._(catalogKey(type, key), vars as Record<string, string>));
    if (text) node.name = text;
  } catch {
    // No label: the node stays without a name, as before.
  }
}
