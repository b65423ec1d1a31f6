/**
 * The pure side of the device actions' dialogs (tb-telemetry, tb-attributes, tb-rpc; the widgets are in actions.ts):
 *
 * - their settings checked by the runtime's own code (the target's rule here; each node's own check, which its
 *   dialog registers with `settingsCheck`), so the dialog flags "an aggregation without an interval", "more than
 *   700 intervals" or "a 30 s wait without persistent" in the words the node would use at run time. What a
 *   message may still bring (the keys, the range, the method) is not asked for in the dialog: only what the
 *   node's own settings get wrong;
 * - the keys as chips with suggestions from the entity's own keys (the fixed entity chosen with the entity picker),
 *   else from the keys of the entities of the type the node acts on.
 *
 * No DOM here: unit-tested in Node, bundled into the editor with the rest of TbBuilder.
 */
import { prepareTargets, targetRules } from '../../protocol/targets';
import { errorInfo } from '../../query-model/check';
import { targetEntityTypeSetting } from '../../settings/target';
import { isUuid } from '../dialog/predicates';

export const ACTION_TYPES = ['tb-telemetry', 'tb-attributes', 'tb-rpc', 'tb-rule-engine', 'tb-relation'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/**
 * The entity types a dialog offers for a fixed entity and for a bare UUID, from the runtime's one rule of which
 * entities each node acts on (ACTION_TARGETS: tb-rpc, devices only).
 */
export { targetEntityTypes } from '../../protocol/targets';

export interface ActionProblem {
  /** The setting the runtime names (`interval`, `target.id`, `timeout`…). */
  field: string;
  message: string;
}

type Settings = Record<string, unknown>;

/**
 * A device action's own check of its settings (its node's logic, run on the dialog's values with stand-ins for what
 * a message may still bring): throws as the runtime would. Each dialog registers its own (`settingsCheck`).
 */
export type SettingsCheck = (settings: Settings, now: number) => void;

const CHECKS: Partial<Record<ActionType, SettingsCheck>> = {};

/** Registers a device action's check of its settings, which `actionProblem` runs after the target's. */
export function settingsCheck(type: ActionType, check: SettingsCheck): void {
  CHECKS[type] = check;
}

function checkTarget(type: ActionType, s: Settings): void {
  const rules = targetRules(type, s.targetEntityType);
  // tb-rule-engine as the connection's user reads no entity.
  if (s.targetType !== 'json' || s.originator === 'user') return;
  const text = typeof s.target === 'string' ? s.target : '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw Object.assign(new Error(`target is not valid JSON: ${(err as Error).message}`), { field: 'target' });
  }
  prepareTargets(value, 'target', rules);
}

/**
 * The first problem the runtime would find with a device action's settings (the dialog's live values), or
 * undefined. Never throws.
 */
export function actionProblem(type: ActionType, settings: Settings, now = Date.now()): ActionProblem | undefined {
  try {
    checkTarget(type, settings);
    CHECKS[type]?.(settings, now);
    return undefined;
  } catch (e) {
    const i = errorInfo(e);
    return { field: i.field, message: i.message };
  }
}

/** Is `field` (as the runtime names it: `target[0].id`, `target.entityType`) about the setting `name`? */
export function isAbout(field: string, name: string): boolean {
  return field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`);
}

/** The last verdict: Node-RED validates every setting of the dialog at each change, with the same settings. */
let last: { key: string; at: number; problem: ActionProblem | undefined } | undefined;

/** For a node's `validate` of setting `name`: true, or the runtime's message when the problem is that setting's. */
export function validateSetting(type: ActionType, settings: Settings, name: string): true | string {
  let key: string;
  try {
    key = `${type}\n${JSON.stringify(settings)}`;
  } catch {
    key = '';
  }
  const now = Date.now();
  if (!last || key === '' || last.key !== key || now - last.at > 1000)
    last = { key, at: now, problem: actionProblem(type, settings, now) };
  const p = last.problem;
  return p && isAbout(p.field, name) ? p.message : true;
}

// ---------------------------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------------------------

/** The type of a bare id when the node has no setting for it (tb-rpc: devices only). */
const BARE_ID_TYPE = targetEntityTypeSetting().default;

/** Where the suggested keys come from: fixed entities (their own keys), or every entity of a type. */
export interface KeySource {
  entityType: string;
  ids: string[];
  /** Without ids: the keys of the entities of these profiles only (a query's), else of every entity of the type. */
  profiles?: string[];
}

/** The entities of a fixed target (`{entityType, id}` or a list, as JSON): those of the first one's type. */
export function fixedEntities(targetType: string, target: string, fallbackType: string): KeySource {
  if (targetType === 'json') {
    try {
      const v = JSON.parse(target) as unknown;
      const list = (Array.isArray(v) ? v : [v]).filter(
        (x): x is { entityType: string; id: string } =>
          !!x &&
          typeof x === 'object' &&
          typeof (x as { entityType?: unknown }).entityType === 'string' &&
          isUuid((x as { id?: unknown }).id),
      );
      if (list.length) {
        const entityType = list[0].entityType;
        return { entityType, ids: list.filter((x) => x.entityType === entityType).map((x) => x.id) };
      }
    } catch {
      /* not JSON yet: the type's keys */
    }
  }
  return { entityType: fallbackType || BARE_ID_TYPE, ids: [] };
}

/** The key names of an entity look-up (the editor endpoint's keys answer). */
export interface KeyNames {
  timeseries: string[];
  attributes: Partial<Record<string, string[]>>;
}

/** Key names of a kind: `timeseries`, one attribute scope, or `attributes` (every scope). */
export function keysOfKind(keys: KeyNames, kind: string): string[] {
  if (kind === 'timeseries') return keys.timeseries.slice();
  const scope = keys.attributes[kind];
  if (scope) return scope.slice();
  if (kind !== 'attributes' && kind !== 'any' && kind !== 'msg') return [];
  const all = new Set<string>();
  for (const s of Object.keys(keys.attributes)) for (const k of keys.attributes[s] ?? []) all.add(k);
  return [...all].sort();
}

/** The keys of a comma-separated list (trimmed, empty items and repeats dropped), as the runtime reads them. */
export function keyList(text: unknown): string[] {
  const out: string[] = [];
  for (const part of String(text ?? '').split(',')) {
    const k = part.trim();
    if (k !== '' && !out.includes(k)) out.push(k);
  }
  return out;
}
