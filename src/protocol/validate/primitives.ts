/**
 * The small checks every part of the validator is built from: the enums it knows (compared exactly, with a "did you
 * mean" when only the case differs), strings, numbers, UUIDs and arrays, and the "(got …)" wording of its messages.
 * Each check returns the value it was given or throws `TbInputError(path, message)`.
 */

import { TbInputError } from '../../errors';
import {
  ALARM_SEARCH_STATUSES,
  ALARM_SEVERITIES,
  ALIAS_ENTITY_TYPES,
  ATTRIBUTE_SCOPES,
  BOOLEAN_OPERATIONS,
  COMPLEX_OPERATIONS,
  DYNAMIC_VALUE_SOURCE_TYPES,
  ENTITY_FILTER_TYPES,
  ENTITY_KEY_TYPES,
  ENTITY_KEY_VALUE_TYPES,
  ENTITY_TYPES,
  FILTER_PREDICATE_TYPES,
  KEY_FILTERS_OPERATIONS,
  NON_ALARM_KEY_TYPES,
  NUMERIC_OPERATIONS,
  RELATION_DIRECTIONS,
  SORT_DIRECTIONS,
  STRING_OPERATIONS,
} from '../types';

export type Obj = Record<string, unknown>;

/** What the validator accepts as a UUID (any case), as a pattern string for the JSON schema of the editor. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID_RE = new RegExp(UUID_PATTERN);
const objToString = Object.prototype.toString;

export interface EnumSpec<T extends string> {
  readonly set: ReadonlySet<string>;
  /** Lower-cased value -> the exact value, for "did you mean". */
  readonly lower: ReadonlyMap<string, T>;
  /** "A, B, C" for messages. */
  readonly text: string;
}

function enumSpec<T extends string>(values: readonly T[], text?: string): EnumSpec<T> {
  const lower = new Map<string, T>();
  for (const v of values) lower.set(v.toLowerCase(), v);
  return { set: new Set<string>(values), lower, text: text ?? values.join(', ') };
}

export const FILTER_TYPE = enumSpec(ENTITY_FILTER_TYPES);
export const KEY_TYPE = enumSpec(ENTITY_KEY_TYPES);
export const NON_ALARM_KEY_TYPE = enumSpec(NON_ALARM_KEY_TYPES);
export const VALUE_TYPE = enumSpec(ENTITY_KEY_VALUE_TYPES);
export const PREDICATE_TYPE = enumSpec(FILTER_PREDICATE_TYPES);
export const STRING_OP = enumSpec(STRING_OPERATIONS);
export const NUMERIC_OP = enumSpec(NUMERIC_OPERATIONS);
export const BOOLEAN_OP = enumSpec(BOOLEAN_OPERATIONS);
export const COMPLEX_OP = enumSpec(COMPLEX_OPERATIONS);
export const KEY_FILTERS_OP = enumSpec(KEY_FILTERS_OPERATIONS);
export const SOURCE_TYPE = enumSpec(DYNAMIC_VALUE_SOURCE_TYPES);
export const DIRECTION = enumSpec(SORT_DIRECTIONS);
export const RELATION_DIRECTION = enumSpec(RELATION_DIRECTIONS);
export const STATUS = enumSpec(ALARM_SEARCH_STATUSES);
export const SEVERITY = enumSpec(ALARM_SEVERITIES);
export const SCOPE = enumSpec(ATTRIBUTE_SCOPES);
export const ENTITY_TYPE = enumSpec(
  ENTITY_TYPES,
  'an entity type such as DEVICE, ASSET, ENTITY_VIEW, CUSTOMER, USER, DASHBOARD, TENANT, EDGE',
);
export const ALIAS_TYPE = enumSpec(ALIAS_ENTITY_TYPES);
export const ENTITY_OR_ALIAS_TYPE_TEXT = `${ENTITY_TYPE.text}, or an alias ${ALIAS_TYPE.text}`;

export function fail(path: string, message: string): never {
  throw new TbInputError(path, message);
}

/** Short description of a wrong value for "(got …)". */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(v);
    case 'object':
      return Array.isArray(v) ? (v.length === 0 ? '[]' : 'an array') : 'an object';
    default:
      return `a ${typeof v}`;
  }
}

/**
 * A value as JSON text for an error message ("got …"). Never throws: a value JSON cannot hold (a cyclic object, a
 * BigInt) is described instead, and a text longer than `max` characters is cut.
 */
export function jsonText(v: unknown, max = 200): string {
  let s: string | undefined;
  try {
    s = JSON.stringify(v);
  } catch {
    s = undefined;
  }
  if (s === undefined) return describe(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** True when JSON.stringify can write the value (no cyclic reference, no BigInt). */
export function isJsonData(v: unknown): boolean {
  try {
    JSON.stringify(v);
    return true;
  } catch {
    return false;
  }
}

/** "(missing)" or "(got <value>)". */
export function got(v: unknown): string {
  return v === undefined ? '(missing)' : `(got ${describe(v)})`;
}

/** A plain object (not an array, a Date, a Buffer…). */
export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && objToString.call(v) === '[object Object]';
}

export function obj(v: unknown, path: string, what = 'an object'): Obj {
  if (isObject(v)) return v;
  return fail(path, `${path} must be ${what} ${got(v)}`);
}

export function oneOf<T extends string>(v: unknown, spec: EnumSpec<T>, path: string, what?: string): T {
  if (typeof v === 'string' && spec.set.has(v)) return v as T;
  const allowed = what ?? `one of ${spec.text}`;
  if (typeof v === 'string') {
    const hint = spec.lower.get(v.toLowerCase());
    if (hint !== undefined) fail(path, `${path} must be ${allowed} (got ${describe(v)}; did you mean "${hint}"?)`);
  }
  return fail(path, `${path} must be ${allowed} ${got(v)}`);
}

export function str(v: unknown, path: string): string {
  if (typeof v === 'string') return v;
  return fail(path, `${path} must be a string ${got(v)}`);
}

export function nonEmptyStr(v: unknown, path: string): string {
  if (typeof v === 'string' && v.length > 0) return v;
  return fail(path, `${path} must be a non-empty string ${got(v)}`);
}

export function bool(v: unknown, path: string): boolean {
  if (typeof v === 'boolean') return v;
  return fail(path, `${path} must be true or false ${got(v)}`);
}

export function nonNegInt(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  return fail(path, `${path} must be an integer >= 0 ${got(v)}`);
}

export function posInt(v: unknown, path: string): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  return fail(path, `${path} must be a positive integer ${got(v)}`);
}

export function uuid(v: unknown, path: string): string {
  if (typeof v === 'string' && UUID_RE.test(v)) return v;
  return fail(path, `${path} must be a UUID like "784f394c-42b6-435a-983c-b7beff2784f9" ${got(v)}`);
}

export function arr(v: unknown, path: string, what: string): unknown[] {
  if (Array.isArray(v)) return v;
  return fail(path, `${path} must be ${what} ${got(v)}`);
}

export function stringArray(v: unknown, path: string): string[] {
  const a = arr(v, path, 'an array of strings');
  const out: string[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = str(a[i], `${path}[${i}]`);
  return out;
}

export function uuidArray(v: unknown, path: string): string[] {
  const a = arr(v, path, 'a non-empty array of UUID strings');
  if (a.length === 0) fail(path, `${path} must be a non-empty array of UUID strings (got [])`);
  const out: string[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = uuid(a[i], `${path}[${i}]`);
  return out;
}

export function enumArray<T extends string>(v: unknown, spec: EnumSpec<T>, path: string): T[] {
  const a = arr(v, path, `an array of ${spec.text}`);
  const out: T[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = oneOf(a[i], spec, `${path}[${i}]`);
  return out;
}

export function optStr(o: Obj, name: string, path: string, out: Obj): void {
  const v = o[name];
  if (v != null) out[name] = str(v, `${path}.${name}`);
}

export function optBool(o: Obj, name: string, path: string, out: Obj): void {
  const v = o[name];
  if (v != null) out[name] = bool(v, `${path}.${name}`);
}

export const TIME_TEXT = 'a time: ms since 1970 (a number), ISO text such as "2026-01-01T00:00:00Z", or a Date';

/** A time as ms since 1970: a whole number, a text of one, ISO text (from its date on), or a Date. */
export function timeValue(v: unknown, field: string): number {
  let ms: number | undefined;
  if (typeof v === 'number') ms = v;
  else if (v instanceof Date) ms = v.getTime();
  else if (typeof v === 'string') {
    const t = v.trim();
    ms = /^-?\d+$/.test(t) ? Number(t) : /^\d{4}-\d{2}-\d{2}/.test(t) ? Date.parse(t) : NaN;
  }
  if (ms === undefined || !Number.isFinite(ms) || !Number.isInteger(ms) || ms < 0)
    throw new TbInputError(field, `${field} must be ${TIME_TEXT} ${got(v)}`);
  return ms;
}
