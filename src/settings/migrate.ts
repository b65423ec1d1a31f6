/**
 * Migrations of a node's saved settings. A node saves the version of its settings (`version`); when a flow saved by
 * an older version loads, the node's migrations (its `migrations.ts`) bring the settings up to the version this code
 * reads, step by step, in the runtime (before the node reads them) and in the dialog (before it shows them). A
 * migration changes a copy: what Node-RED holds is not touched.
 */
import type { NodeDeclaration } from './declare';

/** One step: the settings of version `to - 1` become those of version `to`. */
export interface Migration {
  readonly to: number;
  /** What changed at that version, in a sentence. */
  readonly why: string;
  up(settings: Record<string, unknown>): void;
}

/** The version a node saved (none: version 1, the first). */
export function savedVersion(saved: Readonly<Record<string, unknown>>): number {
  const v = Number(saved.version);
  return Number.isSafeInteger(v) && v >= 1 ? v : 1;
}

/**
 * The settings brought up to the declaration's version: a copy, with every migration above the saved version
 * applied in order and `version` set. Settings saved by a newer version are left as they are.
 */
export function migrate(
  decl: NodeDeclaration,
  migrations: readonly Migration[],
  saved: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...saved };
  const from = savedVersion(saved);
  if (from >= decl.version) return out;
  for (const m of [...migrations].sort((a, b) => a.to - b.to)) {
    if (m.to <= from || m.to > decl.version) continue;
    m.up(out);
    out.version = m.to;
  }
  out.version = decl.version;
  return out;
}

/**
 * The step every node took at version 2: each setting is saved. A node of version 1 that lacks one (a flow saved
 * before the setting existed) gets the value version 1 read in its place: the setting's default, unless `was` says
 * otherwise.
 */
export function everySettingSaved(decl: NodeDeclaration, was: Readonly<Record<string, unknown>> = {}): Migration {
  return {
    to: 2,
    why: 'every setting is saved; one a version 1 node lacks gets the value version 1 read in its place',
    up(settings) {
      for (const [name, s] of Object.entries(decl.settings)) {
        if (name === 'version' || settings[name] !== undefined) continue;
        const v = name in was ? was[name] : s.default;
        settings[name] = Array.isArray(v) ? [...v] : v;
      }
    },
  };
}
