/**
 * A flow node's settings as it reads them at deploy: what it saved, brought up to date by its migrations, read by its
 * declaration. What a node read is kept beside it, for the tests that hold the dialog and the runtime together.
 */
import type { Node, NodeAPI } from 'node-red';
import type { NodeDeclaration, SavedSettings, Translate } from '../settings/declare';
import { migrate, type Migration } from '../settings/migrate';
import { readSettings, type ReadSettings } from '../settings/read';

const read = new WeakMap<Node, Record<string, unknown>>();

/** The node's settings: migrated, then read (a problem names the setting; its value is then the default). */
export function nodeSettings<D extends NodeDeclaration>(
  node: Node,
  decl: D,
  migrations: readonly Migration[],
  saved: object,
): ReadSettings<D['settings']> {
  const r = readSettings(decl, migrate(decl, migrations, saved as Record<string, unknown>));
  read.set(node, r.values);
  return r;
}

/** What a node read from its settings at deploy (undefined for a node that reads none this way). */
export function settingsOf(node: Node): Readonly<Record<string, unknown>> | undefined {
  return read.get(node);
}

/** The namespace of the package's catalogs, as the runtime reads them (`<module>/<type>:<key>`). */
const MODULE = 'node-red-contrib-thingsboard-query';

/**
 * A node without a name takes its label (as the editor draws it on the canvas, from the same settings) as its name in
 * the runtime: Node-RED names a node by it in the log, in the debug sidebar ("node: save attributes" rather than its
 * id) and in what a Catch or Status node gets (`msg.error.source.name`). Only the running node's: the flow as saved,
 * and so the editor's, keep no name.
 */
export function labelUnnamed(
  RED: NodeAPI,
  node: Node,
  type: string,
  values: SavedSettings,
  label: (s: SavedSettings, t: Translate) => string,
): void {
  if (node.name) return;
  try {
    const text = label(values, (key, vars) => RED._(`${MODULE}/${type}:${key}`, vars as Record<string, string>));
    if (text) node.name = text;
  } catch {
    // No label: the node stays without a name, as before.
  }
}
