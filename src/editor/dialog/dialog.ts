/**
 * A node type's editor definition, typed (`dialog(E, spec)` in src/editor/nodes/<type>.ts). Its html registers
 * the type inline, as the Flow Library's parser needs it (literal type, inline `defaults` with every property,
 * literal category, colour, icon and ports), and takes everything else from here through
 * `TbEditor.dialog('<type>')`:
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
 * test/package.test.ts holds the two sides together: every property of the html's defaults (and credentials)
 * has a validator here, and every validator here a property there.
 */
import { addConnection } from '../builder/dialogs';
import type { EditorNode, TypeHelpers, Validator } from './for-type';

export interface DialogSpec<P extends string> {
  /** Every property of the node (its html's `defaults`, and `credentials` for a config node) and its check. */
  validators: Record<P, Validator>;
  /** Catalog keys of property labels that are not the conventional `<type>.label.<prop>`. */
  labels?: Partial<Record<P, string>>;
  /** The node's label on the canvas (Node-RED's `label`). */
  label(this: EditorNode): string;
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

export function dialog<P extends string>(E: TypeHelpers, spec: DialogSpec<P>): Dialog {
  const { type, t } = E;
  const validators: Record<string, Validator> = spec.validators;
  const labels: Record<string, string | undefined> = spec.labels ?? {};
  const config = E.prefix === 'node-config-input-';
  return {
    type,
    properties: Object.keys(validators),
    label: (prop) => t(labels[prop] ?? `${type}.label.${prop}`),
    validate: (prop) => {
      const v = validators[prop];
      if (!v) throw new Error(`${type}: no validator for ${prop} (src/editor/nodes/${type}.ts)`);
      return v;
    },
    nodeLabel: spec.label,
    paletteLabel: spec.paletteLabel ?? (() => t(`${type}.paletteLabel`)),
    labelStyle,
    onadd: spec.onadd ?? (config ? nothing : addConnection),
    inputLabels: spec.inputLabels ?? (() => t(`${type}.inputLabel`)),
    outputLabels: spec.outputLabels ?? (() => t(`${type}.outputLabel`)),
    oneditprepare: spec.oneditprepare ?? nothing,
    oneditsave: spec.oneditsave ?? nothing,
    oneditcancel: spec.oneditcancel ?? nothing,
    oneditresize: spec.oneditresize ?? nothing,
  };
}
