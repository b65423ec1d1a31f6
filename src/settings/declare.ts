/**
 * A node's settings, declared once (each node's `settings.ts`): for every property the node saves, its kind, its
 * default, the values it allows, whether a message may give it, and its label. Everything else reads the
 * declaration: the runtime's parsing (`readSettings`), the dialog's `defaults` (written into the node's html at
 * build) and its validators, the migrations of older saved settings, and the check of the node's reference page.
 * Pure: no Node-RED, no DOM.
 */

/** A value a setting saves: what the editor's inputs hold. */
export type SettingValue = string | number | boolean | readonly unknown[];

interface Common<D extends SettingValue> {
  /** The value a new node gets in the dialog, and the one the runtime reads when the setting is missing. */
  readonly default: D;
  /**
   * Where a message gives the value when the setting is left empty, such as `msg.timeout` (the node's rule: a
   * setting fixed in the dialog wins). The node reads such a setting for each message (the message's value when it
   * is empty, and for some nodes its placeholders filled in from the message) and checks it then, naming where the
   * value came from: so it is read as saved, not checked by its kind (a missing one reads as its default).
   */
  readonly fromMessage?: string;
  /** The catalog key of its label, when it is not `<type>.label.<name>`. */
  readonly label?: string;
}

/** Free text ('' = not set). */
export interface TextSetting extends Common<string> {
  readonly kind: 'text';
  /** The dialog requires a value (Node-RED's `required`). */
  readonly required?: boolean;
}

/** One of a list of values ('' and a missing value read as the default). */
export interface ChoiceSetting<V extends string = string> extends Common<V> {
  readonly kind: 'choice';
  readonly values: readonly V[];
}

/** A check box (`true` / `false`; older flows saved "true" / "false"). */
export interface FlagSetting extends Common<boolean> {
  readonly kind: 'flag';
}

/**
 * A whole number from `min` (to `max`); with `optional`, '' means "not set" (the message, or nothing). A missing one
 * reads as its default, as every setting does.
 */
export interface WholeSetting extends Common<number | ''> {
  readonly kind: 'whole';
  readonly min: number;
  readonly max?: number;
  readonly optional?: boolean;
}

/** A number of at least `min` (a fraction allowed); with `above`, greater than `min` ('' reads as the default). */
export interface NumberSetting extends Common<number> {
  readonly kind: 'number';
  readonly min: number;
  readonly above?: boolean;
}

/** Text the node reads in its own way (JSON, a list, a query): saved as the dialog writes it. */
export interface FormattedSetting extends Common<string | number> {
  readonly kind: 'json' | 'list' | 'query';
}

/**
 * A duration, saved as the dialog shows it (`30s`, `15m`, `2h`: see duration.ts) and read as ms: at least `min` ms
 * (more than it with `above`); with `optional`, '' means "not set" (else '' reads as the default).
 */
export interface DurationSetting extends Common<string> {
  readonly kind: 'duration';
  readonly min: number;
  readonly above?: boolean;
  readonly optional?: boolean;
}

/** The rows of a list the dialog edits (value rows). */
export interface RowsSetting extends Common<readonly unknown[]> {
  readonly kind: 'rows';
}

/** A reference to a config node: the node's connection (`tb-connection`, required), or an optional `tls-config`. */
export interface ConfigSetting extends Common<''> {
  readonly kind: 'config';
  readonly type: string;
  readonly required: boolean;
}

/** The version of the saved settings (the node's current version is its default). */
export interface VersionSetting extends Common<number> {
  readonly kind: 'version';
}

export type Setting =
  | TextSetting
  | ChoiceSetting
  | FlagSetting
  | WholeSetting
  | NumberSetting
  | FormattedSetting
  | DurationSetting
  | RowsSetting
  | ConfigSetting
  | VersionSetting;

/** A credential of a config node: kept in Node-RED's credentials store, never in the flow. */
export interface Credential {
  readonly type: 'text' | 'password';
}

/** A node type: what its html registers, and its settings. */
export interface NodeDeclaration<S extends Record<string, Setting> = Record<string, Setting>> {
  readonly type: string;
  /** `config` for the config node. */
  readonly category: 'ThingsBoard' | 'config';
  readonly inputs: 0 | 1;
  readonly outputs: number;
  /** The version of the settings this code saves; migrations bring older ones up to it. */
  readonly version: number;
  readonly settings: S & { readonly version: VersionSetting };
  readonly credentials?: Readonly<Record<string, Credential>>;
}

/** The colour of every node of the package (the palette's category). */
export const NODE_COLOR = '#3FADB5';

/** The package's name: a node type's catalog is read as `<module>/<type>:<key>`. */
export const MODULE = 'node-red-contrib-thingsboard-query';

/** The full key of a text in a node type's catalog, as `RED._` reads it in the runtime and in the editor. */
export function catalogKey(type: string, key: string): string {
  return `${MODULE}/${type}:${key}`;
}

// ---- constructors -------------------------------------------------------------------------------------------------

type Extra<T extends Setting> = Partial<Omit<T, 'kind' | 'default' | 'values'>>;

/** A setting a message may give when it is left empty (see `fromMessage`): its value is read as saved. */
export interface MessageSetting {
  readonly fromMessage: string;
}

/** The setting, marked as one a message may give when its extra says so. */
type With<T extends Setting, X> = X extends { fromMessage: string } ? T & MessageSetting : T;

export function text<X extends Extra<TextSetting> = object>(def = '', extra?: X): With<TextSetting, X> {
  return { kind: 'text', default: def, ...extra } as With<TextSetting, X>;
}

export function choice<V extends string, X extends Extra<ChoiceSetting<V>> = object>(
  values: readonly V[],
  def: NoInfer<V>,
  extra?: X,
): With<ChoiceSetting<V>, X> {
  return { kind: 'choice', values, default: def, ...extra } as With<ChoiceSetting<V>, X>;
}

export function flag<X extends Extra<FlagSetting> = object>(def: boolean, extra?: X): With<FlagSetting, X> {
  return { kind: 'flag', default: def, ...extra } as With<FlagSetting, X>;
}

export function whole<X extends Extra<WholeSetting> = object>(
  def: number | '',
  range: { min: number; max?: number; optional?: boolean },
  extra?: X,
): With<WholeSetting, X> {
  return { kind: 'whole', default: def, ...range, ...extra } as With<WholeSetting, X>;
}

export function number<X extends Extra<NumberSetting> = object>(
  def: number,
  min: number,
  extra?: X,
): With<NumberSetting, X> {
  return { kind: 'number', default: def, min, ...extra } as With<NumberSetting, X>;
}

export function formatted<X extends Extra<FormattedSetting> = object>(
  kind: FormattedSetting['kind'],
  def: string | number,
  extra?: X,
): With<FormattedSetting, X> {
  return { kind, default: def, ...extra } as With<FormattedSetting, X>;
}

export function duration<X extends Extra<DurationSetting> = object>(
  def: string,
  range: { min: number; above?: boolean; optional?: boolean },
  extra?: X,
): With<DurationSetting, X> {
  return { kind: 'duration', default: def, ...range, ...extra } as With<DurationSetting, X>;
}

export function rows(extra: Extra<RowsSetting> = {}): RowsSetting {
  return { kind: 'rows', default: [], ...extra };
}

/** The node's tb-connection (required). */
export function connection(): ConfigSetting {
  return { kind: 'config', type: 'tb-connection', required: true, default: '' };
}

/** An optional config node of another type (such as `tls-config`). */
export function configNode(type: string): ConfigSetting {
  return { kind: 'config', type, required: false, default: '' };
}

/** Declares a node type; its settings get `version` (the current version) last. */
export function declareNode<S extends Record<string, Setting>>(d: {
  type: string;
  category?: 'ThingsBoard' | 'config';
  inputs: 0 | 1;
  outputs: number;
  version: number;
  settings: S;
  credentials?: Readonly<Record<string, Credential>>;
}): NodeDeclaration<S> {
  const version: VersionSetting = { kind: 'version', default: d.version };
  return {
    type: d.type,
    category: d.category ?? 'ThingsBoard',
    inputs: d.inputs,
    outputs: d.outputs,
    version: d.version,
    settings: { ...d.settings, version },
    credentials: d.credentials,
  };
}

/** The settings a message may give when they are left empty, and the message property each reads. */
export function fromMessage(decl: NodeDeclaration): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, s] of Object.entries(decl.settings)) if (s.fromMessage) out[name] = s.fromMessage;
  return out;
}

// ---- the values a runtime reads -----------------------------------------------------------------------------------

/** The type of a setting's value once read (one a message may give: as saved, for the node to check). */
export type ValueOf<T extends Setting> = T extends MessageSetting
  ? unknown
  : T extends ChoiceSetting<infer V>
    ? V
    : T extends FlagSetting
      ? boolean
      : T extends WholeSetting | DurationSetting
        ? number | undefined
        : T extends NumberSetting | VersionSetting
          ? number
          : T extends RowsSetting
            ? unknown[]
            : T extends FormattedSetting
              ? string | number
              : string;

/** A node's settings once read: every declared property, with its type. */
export type Values<S extends Record<string, Setting>> = { -readonly [K in keyof S]: ValueOf<S[K]> };

/**
 * A translation of a node's catalog key (`<type>.…`), with its variables: the editor's `t`, or the runtime's, which
 * reads the same catalog. What a node's label is built with, on both sides.
 */
export type Translate = (key: string, vars?: Record<string, unknown>) => string;

/** A node's settings as saved, read by its label. */
export type SavedSettings = Readonly<Record<string, unknown>>;

/**
 * A node's label when it has no name, from its settings (each node's label.ts): the editor draws it on the canvas and
 * the runtime names the node by it in the log and the debug sidebar.
 */
export type LabelOf = (s: SavedSettings, t: Translate) => string;
