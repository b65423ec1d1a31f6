/**
 * A node type's editor definition, typed (`dialog(E, spec)`, the default export of a node's editor.ts). The build
 * writes the node's registration into its html, from its declared settings, in the shape the Flow Library's parser
 * reads (literal type, inline `defaults` with every property, literal category, colour, icon and ports), and the
 * registration takes everything else from here through `TbEditor.dialog('<type>')`:
 *
 *   var D = TbEditor.dialog('tb-rpc');
 *   RED.nodes.registerType('tb-rpc', {
 *       category: 'ThingsBoard', color: '#3FADB5', icon: 'tb-rpc.svg', inputs: 1, outputs: 1,
 *       defaults: { name: { value: '', label: D.label('name'), validate: D.validate('name') }, ... },
 *       label: D.nodeLabel, paletteLabel: D.paletteLabel, labelStyle: D.labelStyle, onadd: D.onadd,
 *       inputLabels: D.inputLabels, outputLabels: D.outputLabels, oneditprepare: D.oneditprepare,
 *       oneditsave: D.oneditsave, oneditcancel: D.oneditcancel, oneditresize: D.oneditresize
 *   });
 *
 * A module's top level builds its validators but translates nothing: the bundle also runs where there is no RED
 * (at build, to write the query schemas; in the unit tests), so every RED._ and $ call sits inside a function.
 *
 * The package test holds the two sides together: every property of the html's defaults (and credentials)
 * has a validator here, and every validator here a property there.
 */
import { numberToDuration } from '../../protocol/duration';
import type { LabelOf, NodeDeclaration, Setting } from '../../settings/declare';
import { migrate, savedVersion, type Migration } from '../../settings/migrate';
import { addConnection } from '../builder/dialogs';
import { chainHint } from './chain-hint';
import type { EditorNode, TypeHelpers, Validator } from './for-type';
import { blank } from './predicates';

export interface DialogSpec<P extends string> {
  /**
   * The node's declared settings (its settings.ts) and migrations: the dialog's properties, their generated
   * validators, and the migration of a node saved by an older version when its dialog opens.
   */
  declaration?: NodeDeclaration;
  migrations?: readonly Migration[];
  /**
   * The checks of the node's properties: every one, for a node without a declaration; with one, only those whose
   * check is more than its kind says (a choice among its values, a whole number in its range, a check box…).
   */
  validators: Partial<Record<P, Validator>>;
  /**
   * Catalog keys of property labels that are not the conventional `<type>.label.<prop>` (with a declaration, its
   * settings' `label` say them).
   */
  labels?: Partial<Record<P, string>>;
  /** The node's label on the canvas when it has no name (its label.ts; the name wins). */
  unnamed: LabelOf;
  /** Default: the catalog's `<type>.paletteLabel`. */
  paletteLabel?(): string;
  /** Defaults: the catalog's `<type>.inputLabel` and `<type>.outputLabel`. */
  inputLabels?(): string;
  outputLabels?(this: EditorNode, i: number): string;
  /** Default: a new node gets the only connection there is (none for a config node). */
  onadd?(this: EditorNode): void;
  oneditprepare?(this: EditorNode): void;
  oneditsave?(this: EditorNode): void;
  oneditcancel?(this: EditorNode): void;
  oneditresize?(this: EditorNode, size: { width: number; height: number }): void;
}

/** What the html's registration takes from the typed module (`TbEditor.dialog('<type>')`). */
export interface Dialog {
  readonly type: string;
  /** The properties it has a validator for: the html's defaults (and credentials), no more, no fewer. */
  readonly properties: readonly string[];
  /** A property's label, from the catalog's `<type>.label.<prop>` (or the key the module names for it). */
  label(prop: string): string;
  /** A property's validator (an unknown property is a mistake of the html: it throws at registration). */
  validate(prop: string): Validator;
  nodeLabel(this: EditorNode): string;
  paletteLabel(): string;
  labelStyle(this: EditorNode): string;
  onadd(this: EditorNode): void;
  inputLabels(): string;
  outputLabels(this: EditorNode, i: number): string;
  oneditprepare(this: EditorNode): void;
  oneditsave(this: EditorNode): void;
  oneditcancel(this: EditorNode): void;
  oneditresize(this: EditorNode, size: { width: number; height: number }): void;
}

const nothing = (): void => undefined;

/** The node's label is italic when it has a name (the core convention). */
function labelStyle(this: EditorNode): string {
  return this.name ? 'node_label_italic' : '';
}

/** The check a setting's kind gives (the node's own validator stands in for it where the kind says too little). */
function kindValidator(E: TypeHelpers, name: string, s: Setting): Validator {
  const key = `${E.type}.errors.${name}`;
  // A setting a message may give may be left empty: a value is checked as the node checks it (its own validator).
  if (s.fromMessage !== undefined) return E.any;
  switch (s.kind) {
    case 'choice':
      return E.oneOf(s.values, key);
    case 'flag':
      return E.bool(s.label ?? `${E.type}.label.${name}`);
    case 'whole': {
      const check = E.whole(s.min, s.max ?? null, key);
      return s.optional || s.default === '' ? E.when((v) => !blank(v), check) : check;
    }
    case 'number': {
      // Empty reads as the default.
      const check: Validator = function (v) {
        const n = Number(v);
        return isFinite(n) && (s.above ? n > s.min : n >= s.min) ? true : E.t(key);
      };
      return E.when((v) => !blank(v), check);
    }
    case 'duration':
      // Empty reads as the default (or "not set", when optional).
      return E.when((v) => !blank(v), E.duration(key, s.min, s.above));
    case 'config':
      return s.type === 'tb-connection' ? E.connection() : E.any;
    case 'version':
      return E.version();
    default:
      return E.any;
  }
}

/**
 * Before the dialog shows a node: a node saved by an older version is migrated (on a copy), and every setting the
 * migration changes shows its new value; a setting the node still lacks (a flow written by hand) shows its default,
 * which is what the runtime reads in its place.
 */
function showMigrated(E: TypeHelpers, decl: NodeDeclaration, migrations: readonly Migration[], node: EditorNode): void {
  const migrated = migrate(decl, migrations, node);
  for (const [name, s] of Object.entries(decl.settings)) {
    if (migrated[name] === undefined) migrated[name] = s.default;
    if (name === 'version' || migrated[name] === node[name] || typeof s.default === 'object') continue;
    const el = E.input(name);
    if (!el.length) continue;
    if (el.is(':checkbox')) el.prop('checked', migrated[name] === true || migrated[name] === 'true');
    else el.val(migrated[name] as string);
  }
}

/**
 * A validator that checks a node saved by an older version as the runtime reads it: its settings migrated (the
 * dialog of such a node shows them migrated already, and it saves the current version). So a setting whose kind
 * changed, such as a number of seconds that became a duration, is not flagged on the canvas before it is opened.
 */
function asMigrated(
  decl: NodeDeclaration,
  migrations: readonly Migration[],
  name: string,
  validator: Validator,
): Validator {
  return function (v, opt) {
    if (savedVersion(this) >= decl.version || v !== this[name]) return validator.call(this, v, opt);
    const migrated = migrate(decl, migrations, this);
    return validator.call(migrated, migrated[name], opt);
  };
}

/**
 * The duration settings of the dialog, as it saves them: a number typed alone (ms) gets its unit ("15000" is
 * saved "15s"), so that the dialog shows every duration with its unit.
 */
function withUnits(E: TypeHelpers, decl: NodeDeclaration): void {
  for (const [name, s] of Object.entries(decl.settings)) {
    if (s.kind !== 'duration') continue;
    const el = E.input(name);
    const v = el.val();
    if (el.length && typeof v === 'string') el.val(String(numberToDuration(v.trim(), 'ms')));
  }
}

export function dialog<P extends string>(E: TypeHelpers, spec: DialogSpec<P>): Dialog {
  const { type, t } = E;
  const decl = spec.declaration;
  const migrations = spec.migrations ?? [];
  const validators: Record<string, Validator> = {};
  if (decl) {
    for (const [name, s] of Object.entries(decl.settings)) validators[name] = kindValidator(E, name, s);
    for (const name of Object.keys(decl.credentials ?? {})) validators[name] = E.any;
  }
  for (const [name, v] of Object.entries(spec.validators) as Array<[string, Validator | undefined]>) {
    if (!v) continue;
    if (decl && !(name in validators)) throw new Error(`${type}: a validator for ${name}, which it does not declare`);
    validators[name] = v;
  }
  const labels: Record<string, string | undefined> = { ...spec.labels };
  if (decl) for (const [name, s] of Object.entries(decl.settings)) if (s.label) labels[name] ??= s.label;
  const config = E.prefix === 'node-config-input-';
  const prepare = spec.oneditprepare ?? nothing;
  const save = spec.oneditsave ?? nothing;
  return {
    type,
    properties: Object.keys(validators),
    label: (prop) => t(labels[prop] ?? `${type}.label.${prop}`),
    validate: (prop) => {
      const v = validators[prop];
      if (!v) throw new Error(`${type}: no validator for ${prop} (src/nodes/${type}/editor.ts)`);
      return decl && migrations.length && prop in decl.settings ? asMigrated(decl, migrations, prop, v) : v;
    },
    nodeLabel(this: EditorNode): string {
      return String(this.name || spec.unnamed(this, t));
    },
    paletteLabel: spec.paletteLabel ?? (() => t(`${type}.paletteLabel`)),
    labelStyle,
    onadd: spec.onadd ?? (config ? nothing : addConnection),
    inputLabels: spec.inputLabels ?? (() => t(`${type}.inputLabel`)),
    outputLabels: spec.outputLabels ?? (() => t(`${type}.outputLabel`)),
    oneditprepare: decl
      ? function (this: EditorNode) {
          showMigrated(E, decl, migrations, this);
          prepare.call(this);
          // A query wired to a node that reads msg.entity (either end): one line, and the fix in one click.
          chainHint(E, this);
        }
      : prepare,
    // The settings saved are those of the declaration's version (Node-RED sees the change and saves the node).
    oneditsave: decl
      ? function (this: EditorNode) {
          withUnits(E, decl);
          save.call(this);
          this.version = decl.version;
        }
      : save,
    oneditcancel: spec.oneditcancel ?? nothing,
    oneditresize: spec.oneditresize ?? nothing,
  };
}
