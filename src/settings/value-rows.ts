/**
 * The values of a save set in the dialog, the pure part shared by tb-attributes, tb-telemetry and their dialogs:
 * rows of key, type and value, instead of msg.payload, so that "targetTemp = 21 on every thermostat" needs no node
 * to build a payload.
 *
 * A row's type is one of Node-RED's TypedInput types that the house evaluates:
 * - `str`, `num`, `bool`, `json`: fixed, read and checked once at deploy; a `str` value may hold placeholders
 *   (`{{msg.<path>}}`, `{{flow.<key>}}`, `{{global.<key>}}`, `{{env.<NAME>}}`), resolved for each message with the
 *   rules of every other setting (a whole placeholder keeps the value's type);
 * - `msg`, `flow`, `global`, `env`: read for each message exactly as a `{{…}}` placeholder that is the whole value;
 * - `jsonata`: an expression the caller prepares at deploy and evaluates for each message.
 * A key is named (not blank, at most 255 characters) and given once: anything else is a problem of the settings,
 * found at deploy. A value missing for a message refuses it (TB_INVALID_INPUT, naming `values.<key>`).
 * No I/O, no Node-RED.
 */
import { TbConfigError, TbInputError } from '../errors';
import {
  parseTemplate,
  resolveBindings,
  type BindingRef,
  type BindingSource,
  type Bindings,
  type BoundLeaf,
} from '../protocol/bindings';
import { MAX_KEY_LENGTH } from '../protocol/telemetry';
import { choice, rows as valueRows } from './declare';

/** Where a save's values come from: msg.payload (as before rows existed), or the rows of the dialog. */
export const VALUES_FROM = ['payload', 'rows'] as const;
export type ValuesFrom = (typeof VALUES_FROM)[number];

/** The settings of a save's values: where they come from (msg.payload, as before rows existed) and the rows. */
export function valueRowsSettings() {
  return { valuesFrom: choice(VALUES_FROM, 'payload'), values: valueRows() };
}

export const VALUE_TYPES = ['str', 'num', 'bool', 'json', 'msg', 'flow', 'global', 'env', 'jsonata'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/** A row as the dialog saves it (the value as the TypedInput holds it: text). */
export interface ValueRow {
  key: string;
  type: ValueType;
  value: string;
}

/** The rows, checked and split by how each value is found for a message. */
export interface PreparedRows {
  /** Fixed values and texts with placeholders, by key, in the order of the rows (JSONata rows hold a place). */
  readonly template: Record<string, unknown>;
  /** The placeholders (msg, flow, global, env rows, and str rows holding `{{…}}`); undefined when there are none. */
  readonly bindings: Bindings | undefined;
  /** The JSONata rows: their key and expression. */
  readonly jsonata: ReadonlyArray<{ key: string; expr: string }>;
  /** The keys of json rows holding an object or array, copied for each message (a message never shares the node's). */
  readonly objects: readonly string[];
}

/** How messages name a row's value. */
export function rowField(key: string): string {
  return `values.${key}`;
}

function problem(message: string): never {
  throw new TbConfigError(message);
}

const REF_SOURCES: readonly string[] = ['msg', 'flow', 'global', 'env'];

/**
 * A fixed value of a TypedInput of type num, bool or json, read as Node-RED reads it (a row's, a wait's compared
 * value); throws a TbConfigError naming `field`. JSON may be null.
 */
export function fixedTypedValue(type: 'num' | 'bool' | 'json', raw: unknown, field: string): unknown {
  if (type === 'num') {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim()) : NaN;
    if (!Number.isFinite(n)) problem(`${field} is ${JSON.stringify(raw)}, which is not a number`);
    return n;
  }
  if (type === 'bool') {
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    return problem(`${field} must be true or false (got ${JSON.stringify(raw)})`);
  }
  let v = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch (err) {
      problem(`${field} is not valid JSON: ${(err as Error).message}`);
    }
  }
  return v;
}

/** A row's fixed value: as fixedTypedValue, and never null (ThingsBoard cannot store it). */
function fixedValue(type: 'num' | 'bool' | 'json', raw: unknown, field: string): unknown {
  const v = fixedTypedValue(type, raw, field);
  if (v === null || v === undefined) problem(`${field} is null: ThingsBoard cannot store null (leave the row out)`);
  return v;
}

/**
 * Checks the rows and prepares them (at deploy, and in the dialog). Throws a TbConfigError naming the row: no rows,
 * a blank, long or repeated key, an unknown type, a fixed value that is not one of its type, an empty source.
 */
export function prepareValueRows(rows: unknown): PreparedRows {
  if (!Array.isArray(rows))
    problem(`values must be a list of rows { key, type, value } (got ${rows === undefined ? 'nothing' : typeof rows})`);
  if (rows.length === 0) problem('values has no row: add a key and its value, or take the values from msg.payload');
  const template: Record<string, unknown> = {};
  const leaves: BoundLeaf[] = [];
  const jsonata: Array<{ key: string; expr: string }> = [];
  const objects: string[] = [];
  const seen = new Map<string, number>();
  rows.forEach((row: unknown, i) => {
    const r = (row !== null && typeof row === 'object' ? row : {}) as Partial<Record<keyof ValueRow, unknown>>;
    const key = typeof r.key === 'string' ? r.key.trim() : '';
    if (key === '') problem(`values row ${i + 1} has no key: every value needs the name it is saved under`);
    if (key.length > MAX_KEY_LENGTH)
      problem(
        `values row ${i + 1} has a key of ${key.length} characters ("${key.slice(0, 20)}…"); ThingsBoard takes at ` +
          `most ${MAX_KEY_LENGTH}`,
      );
    const first = seen.get(key);
    if (first !== undefined)
      problem(`values has the key "${key}" twice (rows ${first + 1} and ${i + 1}): each key once`);
    seen.set(key, i);
    const field = rowField(key);
    const type = r.type === undefined || r.type === '' ? 'str' : r.type;
    if (!(VALUE_TYPES as readonly unknown[]).includes(type))
      problem(`${field} has the type ${JSON.stringify(type)}: one of ${VALUE_TYPES.join(', ')}`);
    const raw = r.value === undefined || r.value === null ? '' : r.value;
    const text = typeof raw === 'string' ? raw : String(raw);
    switch (type as ValueType) {
      case 'str': {
        const t = typeof raw === 'string' ? parseTemplate(raw) : undefined;
        template[key] = text;
        if (t) leaves.push({ at: [key], ...t });
        break;
      }
      case 'num':
      case 'bool':
      case 'json': {
        const v = fixedValue(type as 'num' | 'bool' | 'json', raw, field);
        template[key] = v;
        if (v !== null && typeof v === 'object') objects.push(key);
        break;
      }
      case 'jsonata':
        if (text.trim() === '') problem(`${field}: write the JSONata expression that gives the value`);
        template[key] = undefined;
        jsonata.push({ key, expr: text });
        break;
      default: {
        const path = text.trim();
        if (path === '')
          problem(`${field}: name the ${type} ${type === 'env' ? 'variable' : 'property'} to read the value from`);
        template[key] = undefined;
        const source = type as BindingSource;
        leaves.push({ at: [key], whole: { source, path, text: `${source}.${path}` } });
      }
    }
  });
  return { template, bindings: bindingsOf(leaves), jsonata, objects };
}

/** The rows' placeholders as the bindings hold them: every reference once. */
function bindingsOf(leaves: BoundLeaf[]): Bindings | undefined {
  if (!leaves.length) return undefined;
  const refs = new Map<string, BindingRef>();
  for (const leaf of leaves) {
    for (const ref of leaf.whole ? [leaf.whole] : (leaf.parts ?? [])) {
      if (typeof ref !== 'string' && REF_SOURCES.includes(ref.source) && !refs.has(ref.text)) refs.set(ref.text, ref);
    }
  }
  return { leaves, refs: [...refs.values()] };
}

/**
 * The values of one message, `{key: value}` in the order of the rows: `read` gives each placeholder's value (as
 * every other setting's placeholder is read), `computed` the JSONata rows' results. A missing value refuses the
 * message (a TbInputError naming `values.<key>`); the values are checked further by the save (checkValues).
 */
export function rowValues(
  rows: PreparedRows,
  read: (ref: BindingRef) => unknown,
  computed: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const values = rows.bindings
    ? resolveBindings(rows.template, rows.bindings, read, { field: 'values', wholeHint: '' }).query
    : { ...rows.template };
  for (const key of rows.objects) values[key] = JSON.parse(JSON.stringify(values[key]));
  for (const { key } of rows.jsonata) {
    const v = computed[key];
    if (v === undefined)
      throw new TbInputError(rowField(key), `${rowField(key)}: its JSONata expression gave nothing for this message`);
    values[key] = v;
  }
  return values;
}
