/**
 * A flow node's settings as it reads them at deploy: what it saved, brought up to date by its migrations, read by its
 * declaration. What a node read is kept beside it, for the tests that hold the dialog and the runtime together.
 */
import type { Node } from 'node-red';
import type { NodeDeclaration } from '../settings/declare';
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
