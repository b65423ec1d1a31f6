/**
 * Values from the message: placeholders in a built query.
 *
 * A string leaf of a query that is exactly `{{msg.<path>}}`, `{{flow.<key>}}`, `{{global.<key>}}` or
 * `{{env.<NAME>}}` (spaces inside the braces allowed) is a bound value: each message replaces it by the value
 * itself, type kept. A placeholder among other text is replaced by the value's text. Braces around anything
 * else are literal text.
 *
 * Pure: the caller reads the values (Node-RED's RED.util.getMessageProperty, the node's context, env) through
 * `read`. The query is scanned once (`findBindings`, at deploy); `resolveBindings` copies only the objects and
 * arrays on the way to a bound leaf, so a query without placeholders costs nothing per message and one with
 * three costs three lookups and a few shallow copies.
 */
import { TbInputError } from '../errors';
import { describe } from './validate/primitives';

export type BindingSource = 'msg' | 'flow' | 'global' | 'env';

/** One placeholder: where the value comes from, as the user wrote it. */
export interface BindingRef {
  readonly source: BindingSource;
  /** The property path (`payload.name`, `payload["device name"]`, `items[0].id`) or context key or env name. */
  readonly path: string;
  /** `msg.payload.name`: how messages name the binding. */
  readonly text: string;
}

/** A path into the query: object keys and array indexes. */
export type QueryPath = readonly (string | number)[];

/** A string leaf holding placeholders. */
export interface BoundLeaf {
  readonly at: QueryPath;
  /** The whole leaf is one placeholder: the value replaces it, type kept. */
  readonly whole?: BindingRef;
  /** Text with placeholders: literal pieces and bindings, in order. */
  readonly parts?: readonly (string | BindingRef)[];
}

export interface Bindings {
  readonly leaves: readonly BoundLeaf[];
  /** Every placeholder once, in the order of the leaves. */
  readonly refs: readonly BindingRef[];
}

/**
 * The keys under which a query holds a list (entityList, the *Types of the type and search
 * filters, the alarm filter's lists, the key lists): a whole-list binding there takes an array, and a single
 * value becomes a one-item list.
 */
const QUERY_LIST_KEYS: ReadonlySet<string> = new Set([
  'entityList',
  'assetTypes',
  'deviceTypes',
  'edgeTypes',
  'entityViewTypes',
  'entityTypes',
  'multiRootEntityIds',
  'filters',
  'predicates',
  'typeList',
  'statusList',
  'severityList',
  'keyFilters',
  'entityFields',
  'latestValues',
  'alarmFields',
]);

/** Is the leaf at this path a whole query list (its last key one of QUERY_LIST_KEYS)? */
export function isQueryList(at: QueryPath): boolean {
  const last = at[at.length - 1];
  return typeof last === 'string' && QUERY_LIST_KEYS.has(last);
}

/** A placeholder anywhere in a string. The path may hold quotes and brackets, never braces. */
const PLACEHOLDER = /\{\{\s*(msg|flow|global|env)\.([^{}]*?)\s*\}\}/g;
/** The whole string is one placeholder. */
const WHOLE = new RegExp(`^${PLACEHOLDER.source}$`);

function refOf(source: string, path: string): BindingRef | undefined {
  if (path === '') return undefined; // `{{msg.}}` is literal text
  return { source: source as BindingSource, path, text: `${source}.${path}` };
}

/** The placeholders of one string, or undefined when it has none (then it is literal text). */
export function parseTemplate(text: string): Pick<BoundLeaf, 'whole' | 'parts'> | undefined {
  if (!text.includes('{{')) return undefined;
  const whole = WHOLE.exec(text);
  if (whole) {
    const ref = refOf(whole[1], whole[2]);
    return ref ? { whole: ref } : undefined;
  }
  const parts: (string | BindingRef)[] = [];
  let last = 0;
  let found = false;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const ref = refOf(m[1], m[2]);
    if (!ref) continue;
    const at = m.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    parts.push(ref);
    last = at + m[0].length;
    found = true;
  }
  if (!found) return undefined;
  if (last < text.length) parts.push(text.slice(last));
  return { parts };
}

/** Every bound leaf of a query, or undefined when it has none (the query is then used as it is). */
export function findBindings(query: unknown): Bindings | undefined {
  const leaves: BoundLeaf[] = [];
  const walk = (v: unknown, at: (string | number)[]): void => {
    if (typeof v === 'string') {
      const t = parseTemplate(v);
      if (t) leaves.push({ at: at.slice(), ...t });
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        at.push(i);
        walk(v[i], at);
        at.pop();
      }
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        at.push(k);
        walk((v as Record<string, unknown>)[k], at);
        at.pop();
      }
    }
  };
  walk(query, []);
  if (!leaves.length) return undefined;
  const refs = new Map<string, BindingRef>();
  for (const leaf of leaves) {
    for (const ref of leaf.whole ? [leaf.whole] : (leaf.parts ?? [])) {
      if (typeof ref !== 'string' && !refs.has(ref.text)) refs.set(ref.text, ref);
    }
  }
  return { leaves, refs: [...refs.values()] };
}

/** `query.pageLink.pageSize`, `query.keyFilters[0].predicate.value.defaultValue` */
export function pathText(prefix: string, at: QueryPath): string {
  let s = prefix;
  for (const p of at) s += typeof p === 'number' ? `[${p}]` : s === '' ? p : `.${p}`;
  return s;
}

/** A bound value as the error messages show it. */
function shown(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return describe(v);
  if (Array.isArray(v)) return 'a list';
  if (v !== null && typeof v === 'object') return 'an object';
  return String(v);
}

function missing(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** One value resolved for a message, kept so that a later check can name the binding. */
export interface ResolvedValue {
  readonly leaf: BoundLeaf;
  readonly value: unknown;
}

export interface Resolved<T = unknown> {
  readonly query: T;
  readonly values: readonly ResolvedValue[];
}

export interface ResolveOptions {
  /** Prefix of the query paths in error messages (the node's field), e.g. `query`. */
  readonly field: string;
  /**
   * Does the query take a list at this path? A whole-list binding (`"statusList": "{{msg.statuses}}"`) takes
   * an array, and a single value becomes a one-item list.
   */
  readonly isList?: (at: QueryPath) => boolean;
  /**
   * What a missing whole value's message suggests (default: leaving the field unbound, which means "any" in a query).
   */
  readonly wholeHint?: string;
}

/**
 * The query with each placeholder replaced by its value for this message. A missing value (undefined, null or
 * an empty string) refuses the message: an empty name filter means "every entity" to ThingsBoard, and a missing
 * name must never become an action on all of them. A value is never parsed: a string arrives as that string.
 */
export function resolveBindings<T>(
  query: T,
  bindings: Bindings,
  read: (ref: BindingRef) => unknown,
  options: ResolveOptions,
): Resolved<T> {
  let root: unknown = query;
  const copied: unknown[] = [];
  const values: ResolvedValue[] = [];
  for (const leaf of bindings.leaves) {
    let value: unknown;
    if (leaf.whole) {
      value = read(leaf.whole);
      if (missing(value)) throw missingValue(options.field, leaf, leaf.whole, value, options.wholeHint);
      if (options.isList !== undefined && !Array.isArray(value) && options.isList(leaf.at)) value = [value];
    } else {
      let text = '';
      for (const part of leaf.parts as readonly (string | BindingRef)[]) {
        if (typeof part === 'string') {
          text += part;
          continue;
        }
        const v = read(part);
        if (missing(v)) throw missingValue(options.field, leaf, part, v, options.wholeHint);
        if (typeof v === 'object') {
          const where = pathText(options.field, leaf.at);
          throw new TbInputError(
            where,
            `${where} puts ${part.text} into text, but it is ${shown(v)}: it must be text, a number or a boolean`,
          );
        }
        text += String(v);
      }
      value = text;
    }
    values.push({ leaf, value });
    root = setAt(root, leaf.at, value, copied);
  }
  return { query: root as T, values };
}

function missingValue(
  field: string,
  leaf: BoundLeaf,
  ref: BindingRef,
  value: unknown,
  wholeHint = ' (leave the field unbound for "any")',
): TbInputError {
  const where = pathText(field, leaf.at);
  const hint = leaf.whole ? wholeHint : '';
  return new TbInputError(
    where,
    `${where} is bound to ${ref.text}, which is ${value === '' ? 'empty' : shown(value)}: the message must give it a ` +
      `value${hint}`,
  );
}

/** A copy of an object or array made for this resolution (the saved query is never changed). */
function own(c: unknown, copied: unknown[]): Record<string | number, unknown> {
  if (copied.includes(c)) return c as Record<string | number, unknown>;
  const copy = Array.isArray(c) ? c.slice() : { ...(c as object) };
  copied.push(copy);
  return copy as Record<string | number, unknown>;
}

/** Sets the value at a path, copying each object or array on the way once. */
function setAt(root: unknown, at: QueryPath, value: unknown, copied: unknown[]): unknown {
  if (at.length === 0) return value;
  const top = own(root, copied);
  let node = top;
  for (let i = 0; i < at.length - 1; i++) {
    const child = own(node[at[i]], copied);
    node[at[i]] = child;
    node = child;
  }
  node[at[at.length - 1]] = value;
  return top;
}

/**
 * Says which binding a validation error is about: "query.pageLink.pageSize is bound to msg.size, which is
 * "ten": must be …". Errors about other fields are returned as they are.
 */
export function explainBound(err: unknown, resolved: Resolved, field: string): unknown {
  if (!(err instanceof TbInputError)) return err;
  for (const { leaf, value } of resolved.values) {
    const where = pathText(field, leaf.at);
    if (err.field !== where && !err.field.startsWith(`${where}.`) && !err.field.startsWith(`${where}[`)) continue;
    const ref = leaf.whole ?? leaf.parts?.find((p): p is BindingRef => typeof p !== 'string');
    if (!ref) return err;
    const message = err.message.startsWith(`${err.field} `) ? err.message.slice(err.field.length + 1) : err.message;
    return new TbInputError(err.field, `${err.field} is bound to ${ref.text}, which is ${shown(value)}: ${message}`);
  }
  return err;
}
