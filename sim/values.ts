/**
 * Typed key-value values and the two ways the server prints them:
 * - `sqlValueString`: what REST queries and the initial WS page show (Postgres text, then
 *   EntityDataAdapter.convertValue);
 * - `javaValueString`: what WS live updates and series show (KvEntry.getValueAsString, Java Double.toString).
 */
import type { KvEntry, KvType } from './types';

/** A number that must be stored as a double even when it is integral (JS cannot tell 23.0 from 23). */
export class DoubleValue {
  constructor(readonly value: number) {}
}
/** A number that must be stored as a long. */
export class LongValue {
  constructor(readonly value: number) {}
}

/** Store `n` as a double (dbl_v): `dbl(23)` is the server's 23.0. */
export function dbl(n: number): DoubleValue {
  return new DoubleValue(n);
}
/** Store `n` as a long (long_v). Plain integral numbers are longs already; this is for clarity. */
export function long(n: number): LongValue {
  return new LongValue(Math.trunc(n));
}

/** JSON-compatible value (stored as json_v). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/**
 * What the mutation API accepts as a value: string -> STRING, boolean -> BOOLEAN, integral number -> LONG,
 * other number -> DOUBLE, `dbl(n)` -> DOUBLE, `long(n)` -> LONG, object/array -> JSON.
 */
export type KvInput = string | number | boolean | DoubleValue | LongValue | JsonValue[] | { [k: string]: JsonValue };

export function toKvEntry(input: KvInput, ts: number): KvEntry {
  if (typeof input === 'string') return { ts, type: 'STRING', value: input };
  if (typeof input === 'boolean') return { ts, type: 'BOOLEAN', value: input };
  if (typeof input === 'number') {
    return Number.isInteger(input) && Math.abs(input) <= Number.MAX_SAFE_INTEGER
      ? { ts, type: 'LONG', value: input }
      : { ts, type: 'DOUBLE', value: input };
  }
  if (input instanceof DoubleValue) return { ts, type: 'DOUBLE', value: input.value };
  if (input instanceof LongValue) return { ts, type: 'LONG', value: input.value };
  if (input !== null && typeof input === 'object') return { ts, type: 'JSON', value: JSON.stringify(input) };
  throw new TypeError(`Unsupported telemetry/attribute value: ${String(input)}`);
}

/** The typed JSON value of an entry (v2 keys `sample.value`, WS-independent). */
export function typedJson(e: KvEntry): JsonValue {
  if (e.type === 'JSON') return JSON.parse(e.value) as JsonValue;
  return e.value;
}

// ---------------------------------------------------------------------------------------------------------------
// Number formatting

function shortestParts(n: number): { digits: string; exp: number; neg: boolean } {
  // toExponential() without an argument gives the shortest round-trip digits: "2.35e+1"
  const s = n.toExponential();
  const neg = s.startsWith('-');
  const body = neg ? s.slice(1) : s;
  const eIdx = body.indexOf('e');
  const mant = body.slice(0, eIdx);
  const exp = Number(body.slice(eIdx + 1));
  const digits = mant.replace('.', '');
  return { digits, exp, neg };
}

/** Postgres float8 output (shortest exact, exponent form when exp < -4 or >= 15). */
export function pgFloat8(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const abs = Math.abs(n);
  if (abs >= 1e-4 && abs < 1e15) return String(n); // JS prints plain decimals in this range
  const { digits, exp, neg } = shortestParts(n);
  if (exp < -4 || exp >= 15) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ae = Math.abs(exp);
    return `${neg ? '-' : ''}${mant}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  }
  return String(n); // JS prints plain decimals for 1e-4 <= |n| < 1e15
}

/** Java Double.toString (shortest digits; plain for 1e-3 <= |n| < 1e7, else computerized "d.dddE±x"). */
export function javaDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(n); // same shortest digits, plain notation in this range
    return s.indexOf('.') < 0 ? `${s}.0` : s;
  }
  // "d.dddE±x" from toExponential's shortest digits, sign included: "1.7957485439685332e+12" → "1.7957485439685332E12",
  // "-1e-7" → "-1.0E-7" (every live `sentAt` of the WS benchmarks goes through here)
  const t = n.toExponential();
  const e = t.indexOf('e');
  const mant = t.indexOf('.') < 0 ? `${t.slice(0, e)}.0` : t.slice(0, e);
  return `${mant}E${t.charCodeAt(e + 1) === 43 ? t.slice(e + 2) : t.slice(e + 1)}`;
}

/** Apache commons-lang3 NumberUtils.isParsable: optional '-', digits, at most one '.', not ending with '.'. */
export function isParsable(s: string): boolean {
  const len = s.length;
  if (len === 0) return false;
  if (s.charCodeAt(len - 1) === 46 /* . */) return false;
  let i = 0;
  if (s.charCodeAt(0) === 45 /* - */) {
    if (len === 1) return false;
    i = 1;
  }
  let dot = false;
  let digit = false;
  for (; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (dot) return false;
      dot = true;
    } else if (c >= 48 && c <= 57) {
      digit = true;
    } else {
      return false;
    }
  }
  return digit;
}

/**
 * EntityDataAdapter.convertValue (HEAD, and every release since 3.6), for text NumberUtils.isParsable accepts
 * (an optional "-", digits, one ".", no exponent):
 * - text starting with "0" but not "0." is kept ("007", "0101010521130565");
 * - an integer is re-printed through BigInteger, of any size ("-007" -> "-7", "89914009129080723322" kept);
 * - a decimal is re-printed as Java's Double.toString only when that is plain ("23.50" -> "23.5"); when it would be
 *   in E notation (|x| < 1e-3 or >= 1e7) the text is kept as it was ("899140091.29080723322", "0.0005",
 *   "12345678.9"): EntityDataAdapterTest asserts this.
 */
export function convertValue(s: string): string {
  if (!isParsable(s)) return s;
  if (s.startsWith('0') && !s.startsWith('0.')) return s;
  if (s.indexOf('.') < 0) return BigInt(s).toString();
  const d = Number(s);
  if (!Number.isFinite(d)) return s;
  const text = javaDouble(d);
  return text.indexOf('.') >= 0 && text.indexOf('E') < 0 ? text : s;
}

/** REST / initial-page representation of a stored value (the SQL path, `DAO/sql/query/EntityDataAdapter.java`). */
export function sqlValueString(e: KvEntry): string {
  switch (e.type) {
    case 'BOOLEAN':
      return e.value ? 'true' : 'false';
    case 'STRING':
      return convertValue(e.value);
    case 'LONG':
      return String(e.value);
    case 'DOUBLE': {
      const v = e.value;
      // Postgres prints integral doubles without a fraction, which convertValue re-reads as an integer: 23.0 -> "23"
      if (Number.isInteger(v) && Math.abs(v) < 1e15) return Object.is(v, -0) ? '0' : String(v);
      const a = Math.abs(v);
      // plain decimals in both Postgres and Java notation: convertValue gives the same text
      if (a >= 1e-3 && a < 1e7) return String(v);
      // Postgres text ("0.0005", "12345678.9", "1e+20"): kept by convertValue, whose Java form would be E notation
      return convertValue(pgFloat8(v));
    }
    case 'JSON':
      return convertValue(e.value);
  }
}

/** WS live-update representation (the Java path, `KvEntry.getValueAsString`: 23.0 -> "23.0"). */
export function javaValueString(e: KvEntry): string {
  switch (e.type) {
    case 'BOOLEAN':
      return e.value ? 'true' : 'false';
    case 'STRING':
    case 'JSON':
      return e.value;
    case 'LONG':
      return String(e.value);
    case 'DOUBLE':
      return javaDouble(e.value);
  }
}

/**
 * Sort helpers, as the query's ORDER BY: num = coalesce(dbl_v, long_v, bool ? 1 : 0); str = coalesce(str_v,
 * json_v::text, '').
 */
export function sortNum(e: KvEntry | undefined): number | null {
  if (!e) return null;
  switch (e.type) {
    case 'DOUBLE':
    case 'LONG':
      return e.value;
    case 'BOOLEAN':
      return e.value ? 1 : 0;
    default:
      return null;
  }
}
export function sortStr(e: KvEntry | undefined): string {
  if (!e) return '';
  if (e.type === 'STRING' || e.type === 'JSON') return e.value;
  return '';
}

export function kvTypeOf(e: KvEntry): KvType {
  return e.type;
}
