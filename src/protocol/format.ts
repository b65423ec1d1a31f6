/**
 * Turning server results into message payloads.
 *
 * Two formats per item:
 * - `raw`: the items exactly as the server sent them (same objects, untouched);
 * - `flat`: one plain object per entity / alarm, values parsed (see {@link parseValue}).
 *
 * Flat entity ({@link flattenEntity}):
 * ```
 * { id, entityType, <entity fields>, <attribute values>, <time-series values>, ts: { <key>: <ms> } }
 * ```
 * - entity fields (ENTITY_FIELD) come first and stay strings as the server sent them, except `createdTime`,
 *   which becomes a number (`null` when empty);
 * - attribute values (ATTRIBUTE, SERVER_ATTRIBUTE, SHARED_ATTRIBUTE, CLIENT_ATTRIBUTE, in that order) come next,
 *   then time series (TIME_SERIES). A later one overwrites an earlier one of the same name (so time series win
 *   over attributes), except that a missing value (`{ts:0, value:""}`, parsed to `null`) never hides a present
 *   one. Neither ever overwrites an entity field;
 * - `id`, `entityType` and `ts` are never overwritten by a key of the same name (such keys are left out);
 * - `ts[key]` is the timestamp (ms) of each attribute / time-series value in the object, `0` for a missing one.
 *   Entity fields have no entry (their server ts is just the query time);
 * - aggregated values (`aggLatest`) and time-series arrays (`timeseries`) are not part of the flat form; use
 *   `raw` for them.
 *
 * Flat alarm ({@link flattenAlarm}):
 * ```
 * { id, tenantId, customerId, type, severity, status, acknowledged, cleared, createdTime, startTs, endTs, ackTs,
 *   clearTs, assignTs, originator: {id, entityType}, originatorName, originatorLabel, originatorDisplayName,
 *   assigneeId, assignee: {id, firstName, lastName, email} | null, details, propagate, propagateToOwner,
 *   propagateToTenant, propagateRelationTypes, entity: {id, entityType}, <entity fields and latest values>, ts: {…} }
 * ```
 * `id` is the alarm UUID; `tenantId`, `customerId` and `assigneeId` are UUIDs too (`null` when the alarm has no
 * customer or no assignee); `entity` is the queried entity the alarm matched (AlarmData.entityId). The entity fields
 * and latest values of `AlarmData.latest` follow the flat-entity rules and never overwrite an alarm field (so an
 * entity field `type` is left out: the alarm's `type` stays).
 */

import { TbInputError } from '../errors';
import {
  ATTRIBUTE_KEY_TYPES,
  ATTRIBUTE_SCOPES,
  type AlarmData,
  type AlarmInfo,
  type AlarmSeverity,
  type AlarmStatus,
  type AttributeScope,
  type AvailableEntityKeys,
  type AvailableEntityKeysV2,
  type EntityData,
  type EntityType,
  type LatestValues,
  type PageData,
  type TsValue,
} from './types';

// ---------------------------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------------------------

// A plain decimal number as Postgres or Java print it (no leading zeros, no spaces, no sign other than "-"), which
// scanDecimal reads without a regular expression: NUMBER_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * The JS value of a TsValue:
 * - `{ts: 0, value: ""}` (no value stored) -> `null`;
 * - a plain decimal number (`"23"`, `"23.0"`, `"-1.5"`, `"1e+20"`, `"1.0E20"`) -> number. Strings with leading
 *   zeros (`"007"`), spaces, a `+` sign, hex, `"NaN"`, `"Infinity"` stay strings, and so do numbers a double
 *   cannot hold: integers beyond 2^53 (`"12345678901234567890"`) and decimals with more digits than a double
 *   keeps (`"899140091.29080723322"`, which the server also keeps as text on purpose: EntityDataAdapter.java);
 * - `"true"` / `"false"` -> boolean;
 * - anything else (text, JSON text) stays a string.
 */
export function parseValue(v: TsValue | null | undefined): unknown {
  if (v == null) return null;
  const s = v.value;
  if (typeof s !== 'string') return s === undefined ? null : s;
  if (s.length === 0) return v.ts === 0 ? null : s;
  const c = s.charCodeAt(0);
  if ((c >= 48 && c <= 57) || c === 45) {
    // digit or "-"
    const n = numberFromText(s);
    return n === undefined ? s : n;
  }
  if (s === 'true') return true;
  if (s === 'false') return false;
  return s;
}

/**
 * The number a plain decimal text stands for ("23", "23.0", "-1.5", "1e+20"), or undefined for anything else
 * (leading zeros, spaces, "+", hex, NaN/Infinity) and for text a double cannot hold: an integer beyond the safe
 * range, or a decimal whose digits do not survive the trip through a double ("899140091.29080723322"; trailing
 * zeros and the exponent's form do not count: "23.0" and "1.0E20" are numbers).
 */
export function numberFromText(s: string): number | undefined {
  if (s.length < 16) {
    // Up to 15 characters hold at most 15 significant digits, which a double always keeps.
    const digits = scanDecimal(s);
    if (digits < 0) return undefined;
    const fast = exactDecimal(s, digits);
    if (fast !== undefined) return fast;
    const n = +s;
    return Number.isFinite(n) ? n : undefined;
  }
  // Longer texts (a live `sentAt` printed the Java way, "1.7957485439685332E12"): one scan checks the form (the
  // same as NUMBER_RE) and counts the significant digits, on the path of every such value of every live update.
  const digits = scanDecimal(s);
  if (digits < 0) return undefined;
  if (digits <= 15) {
    // 15 digits or fewer always survive; a long text may still have them ("-1795748543966.25", "1.5E-7")
    const fast = exactDecimal(s, digits);
    if (fast !== undefined) return fast;
  }
  if (digits === 16 && !scanInteger) {
    const fast = shortest16(s);
    if (fast !== undefined) return fast;
  }
  const q = scanExp - 17;
  const in17 = digits === 17 && !scanInteger && q <= -1 && q >= -22 && read17(s);
  if (in17) {
    // The double computed from the digits, not by `+s` (a third of the time of this path); NaN near a tie.
    const x = nearest17(q);
    if (x === x) {
      const known = survives17(q, x);
      if (known !== UNSURE) return known === SURVIVES ? (s.charCodeAt(0) === 45 ? -x : x) : undefined;
    }
  }
  const n = +s;
  if (!Number.isFinite(n)) return undefined;
  if (scanInteger) return Number.isSafeInteger(n) ? n : undefined;
  // At most 15 significant digits survive too, when the double is in the normal range (a subnormal keeps fewer
  // digits; a text that underflows to 0 keeps none).
  if (digits === 0 || (digits <= 15 && Math.abs(n) >= 2.2250738585072014e-308)) return n;
  if (in17) {
    const known = survives17(q, n < 0 ? -n : n);
    if (known !== UNSURE) return known === SURVIVES ? n : undefined;
  }
  // 16 or 17 digits: the double's shortest form must have the same ones.
  return sameDecimal(s, digits, scanFirst, scanExp, String(n)) ? n : undefined;
}

/**
 * The double nearest to the decimal {@link scanDecimal} just read, when its digits (without a trailing zero) make an
 * integer of at most 2^53 and its exponent is within 10^±22: that integer and that power of ten are exact doubles,
 * so one product or quotient rounds once, to the nearest double, which is exactly what `+s` gives (Clinger's fast
 * path, which strtod implementations take first too), for a fraction of the cost (`+s` takes ~70 ns for "23.5").
 * Undefined otherwise.
 */
function exactDecimal(s: string, digits: number): number | undefined {
  const m = SCRATCH[MANTISSA];
  if (m < 0 || m > 9007199254740992) return undefined;
  const e = scanExp - digits;
  if (e < -22 || e > 22) return undefined;
  const n = scaled(m, e);
  return s.charCodeAt(0) === 45 ? -n : n;
}

const SURVIVES = 1;
const LOST = 0;
const UNSURE = -1;

/** 2^27 + 1: splits a double into two halves whose products are exact (Veltkamp). */
const SPLITTER = 134217729;
/**
 * Scratch doubles of the number reading and the flat rows, kept in place (a module-level `let` holding a double would
 * box each new value: an allocation and a write barrier per store). Its slots: PRODUCT_HIGH, PRODUCT_LOW and FIRST16
 * below, MANTISSA (scanDecimal) and PICK_TS (applyFlatChanges).
 */
const SCRATCH = new Float64Array(5);
/** What {@link twoProduct} found: the rounded product, and what rounding left out. */
const PRODUCT_HIGH = 0;
const PRODUCT_LOW = 1;
/** The first 16 of the 17 digits {@link read17} read, as an integer. */
const FIRST16 = 2;

/**
 * a x b exactly, as SCRATCH[PRODUCT_HIGH] + SCRATCH[PRODUCT_LOW] (Dekker's algorithm; no overflow at the sizes used
 * here).
 */
function twoProduct(a: number, b: number): void {
  const p = a * b;
  let c = SPLITTER * a;
  const ah = c - (c - a);
  const al = a - ah;
  c = SPLITTER * b;
  const bh = c - (c - b);
  const bl = b - bh;
  SCRATCH[PRODUCT_HIGH] = p;
  SCRATCH[PRODUCT_LOW] = ah * bh - p + ah * bl + al * bh + al * bl;
}

/** The last of the 17 digits {@link read17} read (the first 16 are SCRATCH[FIRST16]). */
let readLast = 0;

/**
 * Reads the 17 significant digits {@link scanDecimal} just found in `s`, the first 16 as an integer into
 * SCRATCH[FIRST16] and the last into readLast; false when the first 16 make 2^53 - 1 or more (then that integer + 1
 * would not be exact).
 */
function read17(s: string): boolean {
  let h = 0;
  let i = scanFirst;
  for (let d = 0; d < 16; d++, i++) {
    if (s.charCodeAt(i) === 46) i++; // "."
    h = h * 10 + (s.charCodeAt(i) - 48);
  }
  if (s.charCodeAt(i) === 46) i++;
  SCRATCH[FIRST16] = h;
  readLast = s.charCodeAt(i) - 48;
  return h < 9007199254740991;
}

/** One double, and its bits (little-endian words here), to step to a neighbouring double exactly. */
const STEP = new Float64Array(1);
const STEP_WORDS = new Uint32Array(STEP.buffer);
const LOW_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;
const HIGH_WORD = 1 - LOW_WORD;

/** The next double away from zero (up) or towards it, for a positive normal `x`. */
function neighbour(x: number, up: boolean): number {
  STEP[0] = x;
  const low = STEP_WORDS[LOW_WORD];
  if (up) {
    if (low === 0xffffffff) STEP_WORDS[HIGH_WORD]++;
    STEP_WORDS[LOW_WORD] = low + 1; // wraps to 0 in the Uint32Array
  } else {
    if (low === 0) STEP_WORDS[HIGH_WORD]--;
    STEP_WORDS[LOW_WORD] = low - 1;
  }
  return STEP[0];
}

/**
 * The double nearest to D x 10^q, with D the 17 digits {@link read17} read (10^16 <= D < 10^17) and -22 <= q <= -1,
 * computed from them rather than by `+s`: what `+s` gives, or NaN within 10^-6 of a tie (the caller then asks `+s`).
 * D is exact as the sum of two doubles (10 x its first 16 digits exactly, plus the last one), and 10^-q is an exact
 * double, so x0 = D / 10^-q (rounded once) is within one step of the value, and the exact remainder D - x0 x 10^-q says
 * which side of x0 the value lies and how far: the nearest double is x0, or its neighbour on that side when the value
 * is past their midpoint.
 */
function nearest17(q: number): number {
  const p = POW10[-q];
  twoProduct(SCRATCH[FIRST16], 10);
  const big = SCRATCH[PRODUCT_HIGH];
  const small = SCRATCH[PRODUCT_LOW] + readLast; // both small integers: exact
  const dh = big + small; // Fast2Sum: |big| >= |small|, so dh + dl is D exactly
  const dl = small - (dh - big);
  const x0 = dh / p;
  twoProduct(x0, p);
  // dh and x0 x 10^-q are within a factor of 2 of each other: their difference is exact; the rest is tiny.
  const r = dh - SCRATCH[PRODUCT_HIGH] - SCRATCH[PRODUCT_LOW] + dl;
  if (r === 0) return x0;
  const next = neighbour(x0, r > 0);
  const gap = next > x0 ? next - x0 : x0 - next; // exact: neighbouring doubles
  const off = (r < 0 ? -r : r) / p; // how far the value is from x0
  const half = gap / 2;
  const fromTie = off > half ? off - half : half - off;
  if (fromTie <= gap * 1e-6 || off > gap) return NaN;
  return off < half ? x0 : next;
}

/**
 * Do the 17 significant digits that {@link read17} just read (not an integer) survive the trip through the double
 * `x` (the double nearest to the text's absolute value, as `+s` rounds it)? Decides what comparing them with String(x)
 * decides, without printing x, on the path of every such value of a live update (a `sentAt` with a sub-millisecond part
 * usually has 17). With D the 17 digits as an integer and the value D x 10^q (-22 <= q <= -1), H its first 16:
 * - String(x) is the shortest decimal that reads back as x, so it has 16 digits or fewer when H or H + 1
 *   (x 10^(q+1), the 16-digit decimals on either side of the text) rounds to x: then the 17 digits are LOST;
 * - else it has 17 digits, those of the 17-digit decimal nearest to x: the text's when |x x 10^-q - D| < 1/2.
 *   x x 10^-q and 10H are both computed exactly, as sums of two doubles, so that difference is exact to ~1e-14.
 * UNSURE (the caller prints x) within 1e-7 of a tie; the caller keeps q within its range.
 */
function survives17(q: number, x: number): number {
  const h = SCRATCH[FIRST16];
  const last = readLast;
  if (scaled(h, q + 1) === x || scaled(h + 1, q + 1) === x) return LOST;
  twoProduct(x, POW10[-q]);
  const xh = SCRATCH[PRODUCT_HIGH];
  const xl = SCRATCH[PRODUCT_LOW];
  twoProduct(h, 10);
  // xh and 10H are within a factor of 2 of each other: their difference is exact.
  const d = xh - SCRATCH[PRODUCT_HIGH] + (xl - SCRATCH[PRODUCT_LOW] - last);
  const ad = d < 0 ? -d : d;
  if (ad < 0.4999999) return SURVIVES;
  if (ad > 0.5000001) return LOST;
  return UNSURE;
}

/** 10^0 .. 10^22: every one exact as a double. */
const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
  1e21, 1e22,
];

/** The double nearest to m x 10^e, for an integer m exact as a double and -22 <= e <= 22: one rounding only. */
function scaled(m: number, e: number): number {
  return e >= 0 ? m * POW10[e] : m / POW10[-e];
}

/**
 * A decimal of 16 significant digits that {@link scanDecimal} just read (not an integer), decided without
 * String(n) where it can be (a live `sentAt` is one on every update): its value when that double's shortest form
 * is this very text, undefined when this cannot tell (the caller then decides the slow way).
 *
 * With its 16 digits as an integer m <= 2^53 - 1 and its value m x 10^e, |e| <= 22, the double is one correctly
 * rounded product or quotient of two exact doubles: exactly `+s`. The reals that round to that double form one
 * interval around the text. When neither m - 1 nor m + 1 (x 10^e) rounds to it, that interval holds no other
 * decimal of 16 digits or fewer (a shorter one is also on the 16-digit grid, and would put m - 1 or m + 1 inside
 * it too; the grid only gets finer below 10^15 x 10^e, which is further away than the interval reaches), so the
 * text is the double's one shortest form: what String(n) prints, digit for digit.
 */
function shortest16(s: string): number | undefined {
  const m = SCRATCH[MANTISSA];
  if (m > 9007199254740991) return undefined; // m + 1 must be exact
  const n = exactDecimal(s, 16);
  if (n === undefined) return undefined;
  const e = scanExp - 16;
  const x = n < 0 ? -n : n;
  return scaled(m - 1, e) === x || scaled(m + 1, e) === x ? undefined : n;
}

/**
 * What {@link scanDecimal} found in the last text: the index of its first significant digit, the exponent X of its
 * value 0.<digits> x 10^X, and whether it is an integer (no fraction, no exponent). Module-level scratch rather than
 * a returned object: nothing is allocated per value.
 */
let scanFirst = 0;
let scanExp = 0;
let scanInteger = false;
/**
 * Its significant digits as an integer when no trailing zero follows them (else -1); exact up to 2^53. Kept in
 * SCRATCH[MANTISSA]: a module-level `let` would box every such number (a `sentAt`'s digits are far beyond a small
 * integer).
 */
const MANTISSA = 3;

/** Is `c` the character code of a digit? */
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Scans `s` as NUMBER_RE reads it (a plain decimal: "-"?, 0 or digits without a leading 0, "." and digits, e or E,
 * an optional sign and digits). Returns how many significant digits it has (leading and trailing zeros do not
 * count; 0 for zero), and sets scanFirst, scanExp and scanInteger; -1 when `s` is not a plain decimal.
 */
function scanDecimal(s: string): number {
  const len = s.length;
  const start = s.charCodeAt(0) === 45 ? 1 : 0; // "-"
  let i = start;
  let c = s.charCodeAt(i); // NaN past the end: every test below fails on it
  // The digits before the exponent, as one integer (exact up to 2^53; only read when it is).
  let m = 0;
  if (c === 48) i++;
  else if (c >= 49 && c <= 57) {
    m = c - 48;
    for (i++; i < len && isDigit((c = s.charCodeAt(i))); i++) m = m * 10 + (c - 48);
  } else return -1;
  let dot = -1;
  if (s.charCodeAt(i) === 46) {
    // "."
    dot = i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    for (; i < len && isDigit((c = s.charCodeAt(i))); i++) m = m * 10 + (c - 48);
  }
  const end = i;
  let exp = 0;
  if (i < len) {
    c = s.charCodeAt(i++);
    if (c !== 101 && c !== 69) return -1; // "e" or "E"
    c = s.charCodeAt(i);
    const negExp = c === 45;
    if (negExp || c === 43) i++; // "-" or "+"
    if (!isDigit(s.charCodeAt(i))) return -1;
    for (; i < len; i++) {
      c = s.charCodeAt(i);
      if (!isDigit(c)) return -1;
      exp = exp * 10 + (c - 48);
    }
    if (negExp) exp = -exp;
  }
  scanInteger = dot < 0 && end === len;
  let first = start;
  while (first < end && ((c = s.charCodeAt(first)) === 48 || c === 46)) first++;
  if (first === end) {
    scanFirst = end;
    scanExp = 0;
    SCRATCH[MANTISSA] = -1;
    return 0;
  }
  let last = end - 1;
  while ((c = s.charCodeAt(last)) === 48 || c === 46) last--;
  SCRATCH[MANTISSA] = last === end - 1 ? m : -1;
  const point = dot < 0 ? end : dot;
  scanFirst = first;
  scanExp = exp + (first < point ? point - first : point + 1 - first);
  return last - first + 1 - (dot > first && dot < last ? 1 : 0);
}

/**
 * Does the plain decimal `b` stand for the same value as `a`, which has `digits` significant digits from index
 * `first` and the exponent `exp` ("23.50" and "2.35e1")? Allocates nothing.
 */
function sameDecimal(a: string, digits: number, first: number, exp: number, b: string): boolean {
  if ((a.charCodeAt(0) === 45) !== (b.charCodeAt(0) === 45)) return false;
  if (scanDecimal(b) !== digits || scanExp !== exp) return false;
  let i = first;
  let j = scanFirst;
  for (let d = 0; d < digits; d++, i++, j++) {
    if (a.charCodeAt(i) === 46) i++;
    if (b.charCodeAt(j) === 46) j++;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Flat entities and alarms
// ---------------------------------------------------------------------------------------------------------------

export interface FlatEntity {
  /** Entity UUID. */
  id: string;
  entityType: EntityType;
  /** Timestamp (ms) of each attribute / time-series value; 0 for a missing one. */
  ts: Record<string, number>;
  [key: string]: unknown;
}

export interface FlatAlarm {
  /** Alarm UUID. */
  id: string;
  /** Tenant UUID. */
  tenantId: string | null;
  /** Customer UUID, or null. */
  customerId: string | null;
  type: string;
  severity: AlarmSeverity;
  status: AlarmStatus;
  acknowledged: boolean;
  cleared: boolean;
  createdTime: number;
  startTs: number;
  endTs: number;
  ackTs: number;
  clearTs: number;
  assignTs: number;
  originator: { id: string; entityType: EntityType } | null;
  originatorName: string | null;
  originatorLabel: string | null;
  originatorDisplayName: string | null;
  /** Assignee's user UUID, or null. */
  assigneeId: string | null;
  assignee: { id: string | null; firstName: string | null; lastName: string | null; email: string | null } | null;
  details: unknown;
  propagate: boolean;
  propagateToOwner: boolean;
  propagateToTenant: boolean;
  propagateRelationTypes: string[];
  /** The queried entity this alarm matched. */
  entity: { id: string; entityType: EntityType } | null;
  ts: Record<string, number>;
  [key: string]: unknown;
}

type Bag = Record<string, unknown>;
const hasOwn = Object.prototype.hasOwnProperty;

/** Sets an own property, also for the key "__proto__" (which plain assignment would treat as the prototype). */
function put(o: Bag, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

function createdTimeValue(tv: TsValue | null | undefined): unknown {
  const s = tv == null ? undefined : tv.value;
  if (s == null || s === '') return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : s;
}

/** Attribute or time-series values of one key type. */
function addValues(out: Bag, group: Record<string, TsValue> | null | undefined, ts: Record<string, number>): void {
  if (group == null) return;
  const keys = Object.keys(group);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (k === 'ts') continue;
    const seen = hasOwn.call(ts, k);
    if (!seen && hasOwn.call(out, k)) continue; // id, entityType, an entity field or an alarm field
    const tv = group[k];
    const t = tv == null || typeof tv.ts !== 'number' ? 0 : tv.ts;
    const value = parseValue(tv);
    if (seen && value === null && t === 0 && out[k] !== null) continue; // a missing value never hides a present one
    if (k === '__proto__') {
      put(out, k, value);
      put(ts, k, t);
    } else {
      out[k] = value;
      ts[k] = t;
    }
  }
}

/** Adds the entity fields and latest values of `latest` to `out` (see the module comment for the rules). */
function mergeLatest(out: Bag, latest: LatestValues | null | undefined, ts: Record<string, number>): void {
  if (latest == null) return;
  const ef = latest.ENTITY_FIELD;
  if (ef != null) {
    const keys = Object.keys(ef);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k === 'ts' || hasOwn.call(out, k)) continue;
      const tv = ef[k];
      put(out, k, k === 'createdTime' ? createdTimeValue(tv) : tv == null ? null : tv.value);
    }
  }
  for (let i = 0; i < ATTRIBUTE_KEY_TYPES.length; i++) addValues(out, latest[ATTRIBUTE_KEY_TYPES[i]], ts);
  addValues(out, latest.TIME_SERIES, ts);
}

/** One entity as a flat object (rules in the module comment). */
export function flattenEntity(ed: EntityData): FlatEntity {
  const eid = ed.entityId;
  const out: Bag = { id: eid.id, entityType: eid.entityType };
  const ts: Record<string, number> = {};
  mergeLatest(out, ed.latest, ts);
  out.ts = ts;
  return out as FlatEntity;
}

/**
 * A copy of a flat row: one object and its `ts`, nothing deeper (flat values are strings, numbers, booleans or null).
 */
export function copyFlat(row: FlatEntity): FlatEntity {
  return { ...row, ts: { ...row.ts } };
}

/**
 * The flat form of an entity after some of its latest values changed, made from its previous flat form in place
 * (`row` and `row.ts` are changed, nothing is allocated): only the `changed` keys are recomputed, with the same rules
 * as {@link flattenEntity} (entity fields and id/entityType/ts protected, time series over attributes, a missing
 * value never hiding a present one). `latest` is the entity's whole, merged `latest`. Equal to `flattenEntity` of
 * the merged entity, for a fraction of the work on the live update path, which keeps one row per entity and sends
 * copies of it ({@link copyFlat}). `series[i]`, when given, is the entity's TIME_SERIES value of `changed[i]` when the
 * update changed it there, undefined otherwise (the live path knows it while merging): such a key needs no look at
 * the other groups.
 */
export function applyFlatChanges(
  row: FlatEntity,
  latest: LatestValues,
  changed: readonly string[],
  series?: readonly (TsValue | undefined)[],
): void {
  const ts = row.ts;
  const ef = latest.ENTITY_FIELD;
  // Read by name, once: the groups in the order of the rules (time series last, so they win).
  const a = latest.ATTRIBUTE;
  const sa = latest.SERVER_ATTRIBUTE;
  const sh = latest.SHARED_ATTRIBUTE;
  const ca = latest.CLIENT_ATTRIBUTE;
  const tsg = latest.TIME_SERIES;
  for (let c = 0; c < changed.length; c++) {
    const k = changed[c];
    if (k === 'id' || k === 'entityType' || k === 'ts' || (ef != null && hasOwn.call(ef, k))) continue;
    // A time-series value that is there wins over every attribute (time series come last in the rules): no need
    // to look at the other groups. A deleted one ({ts: 0, value: ""}) may let an attribute show: the groups decide.
    const sv = series === undefined ? undefined : series[c];
    if (sv !== undefined && typeof sv.ts === 'number') {
      const v = parseValue(sv);
      if (v !== null || sv.ts !== 0) {
        put(row, k, v);
        put(ts, k, sv.ts);
        continue;
      }
    }
    pickFound = false;
    pickValue = null;
    SCRATCH[PICK_TS] = 0;
    if (a != null) pick(a, k);
    if (sa != null) pick(sa, k);
    if (sh != null) pick(sh, k);
    if (ca != null) pick(ca, k);
    if (tsg != null) pick(tsg, k);
    if (!pickFound) continue;
    put(row, k, pickValue);
    put(ts, k, SCRATCH[PICK_TS]);
  }
}

/** What {@link pick} chose so far for one key (module-level scratch: nothing allocated per value). */
let pickFound = false;
let pickValue: unknown = null;
/** Its ts, in SCRATCH (a double in a module-level `let` would be boxed on every pick). */
const PICK_TS = 4;

/** One group's value of key `k`, over the one picked so far unless it is missing and that one is not. */
function pick(group: Record<string, TsValue>, k: string): void {
  if (!hasOwn.call(group, k)) return;
  const tv = group[k];
  const t = tv == null || typeof tv.ts !== 'number' ? 0 : tv.ts;
  const v = parseValue(tv);
  if (pickFound && v === null && t === 0 && pickValue !== null) return;
  pickValue = v;
  SCRATCH[PICK_TS] = t;
  pickFound = true;
}

/** The UUID of an id object, or null. */
function uuidOf(id: { id: string } | null | undefined): string | null {
  return id == null || id.id == null ? null : id.id;
}

/** One alarm as a flat object (rules in the module comment). */
export function flattenAlarm(ad: AlarmInfo & Partial<Pick<AlarmData, 'entityId' | 'latest'>>): FlatAlarm {
  const o = ad.originator;
  const a = ad.assignee;
  const e = ad.entityId;
  const out: Bag = {
    id: ad.id == null ? null : ad.id.id,
    tenantId: uuidOf(ad.tenantId),
    customerId: uuidOf(ad.customerId),
    type: ad.type,
    severity: ad.severity,
    status: ad.status,
    acknowledged: ad.acknowledged,
    cleared: ad.cleared,
    createdTime: ad.createdTime,
    startTs: ad.startTs,
    endTs: ad.endTs,
    ackTs: ad.ackTs,
    clearTs: ad.clearTs,
    assignTs: ad.assignTs,
    originator: o == null ? null : { id: o.id, entityType: o.entityType },
    originatorName: ad.originatorName,
    originatorLabel: ad.originatorLabel,
    originatorDisplayName: ad.originatorDisplayName,
    assigneeId: uuidOf(ad.assigneeId),
    assignee:
      a == null
        ? null
        : { id: a.id == null ? null : a.id.id, firstName: a.firstName, lastName: a.lastName, email: a.email },
    details: ad.details,
    propagate: ad.propagate,
    propagateToOwner: ad.propagateToOwner,
    propagateToTenant: ad.propagateToTenant,
    propagateRelationTypes: ad.propagateRelationTypes,
    entity: e == null ? null : { id: e.id, entityType: e.entityType },
  };
  const ts: Record<string, number> = {};
  mergeLatest(out, ad.latest, ts);
  out.ts = ts;
  return out as FlatAlarm;
}

export const RESULT_FORMATS = ['flat', 'raw'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

function badFormat(format: unknown): never {
  throw new TbInputError('format', `format must be one of flat, raw (got ${JSON.stringify(format)})`);
}

/** `raw`: the same array, untouched; `flat`: a new array of {@link flattenEntity} results. */
export function formatEntities(items: EntityData[], format: 'raw'): EntityData[];
export function formatEntities(items: EntityData[], format: 'flat'): FlatEntity[];
export function formatEntities(items: EntityData[], format: ResultFormat): EntityData[] | FlatEntity[];
export function formatEntities(items: EntityData[], format: ResultFormat): EntityData[] | FlatEntity[] {
  if (format === 'raw') return items;
  if (format !== 'flat') badFormat(format);
  const out: FlatEntity[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) out[i] = flattenEntity(items[i]);
  return out;
}

/** `raw`: the same array, untouched; `flat`: a new array of {@link flattenAlarm} results. */
export function formatAlarms(items: AlarmData[], format: 'raw'): AlarmData[];
export function formatAlarms(items: AlarmData[], format: 'flat'): FlatAlarm[];
export function formatAlarms(items: AlarmData[], format: ResultFormat): AlarmData[] | FlatAlarm[];
export function formatAlarms(items: AlarmData[], format: ResultFormat): AlarmData[] | FlatAlarm[] {
  if (format === 'raw') return items;
  if (format !== 'flat') badFormat(format);
  const out: FlatAlarm[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) out[i] = flattenAlarm(items[i]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Paging
// ---------------------------------------------------------------------------------------------------------------

export interface PageInfo {
  page: number;
  pageSize: number;
  totalPages: number;
  totalElements: number;
  hasNext: boolean;
}

/** Paging metadata of one answer: the page asked for plus the server's totals. */
export function pageInfo(pd: PageData<unknown>, pageLink: { page: number; pageSize: number }): PageInfo {
  return {
    page: pageLink.page,
    pageSize: pageLink.pageSize,
    totalPages: pd.totalPages,
    totalElements: pd.totalElements,
    hasNext: pd.hasNext,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Key discovery
// ---------------------------------------------------------------------------------------------------------------

/**
 * The one output shape of both key discovery endpoints:
 * ```
 * { entityTypes: string[],                 // entity types of the matched entities
 *   timeseries: string[],                  // time-series keys
 *   attributes: { SERVER_SCOPE?: string[], SHARED_SCOPE?: string[], CLIENT_SCOPE?: string[], ANY?: string[] } }
 * ```
 * Every list is sorted and free of duplicates. A scope appears in `attributes` only when it has at least one key
 * (so v1 and v2 answers look alike whatever scopes were asked for). `ANY` holds v1 attribute keys fetched without
 * a scope (the server does not say which scope they belong to). Samples (v2 `includeSamples`) are not kept.
 */
export interface NormalizedKeys {
  entityTypes: string[];
  timeseries: string[];
  attributes: Partial<Record<AttributeScope | 'ANY', string[]>>;
}
/** Alias of {@link NormalizedKeys}: what the key discovery operation returns. */
export type KeysResult = NormalizedKeys;

function sortedUnique(a: string[]): string[] {
  if (a.length < 2) return a.slice();
  const out = Array.from(new Set(a));
  out.sort();
  return out;
}

function keyNames(list: Array<{ key: string }> | null | undefined): string[] {
  if (list == null) return [];
  const out: string[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = list[i].key;
  return out;
}

/** Normalises a v2 answer (`POST /api/v2/entitiesQuery/find/keys`). */
export function fromKeysV2(resp: AvailableEntityKeysV2): NormalizedKeys {
  const attributes: NormalizedKeys['attributes'] = {};
  const attrs = resp.attributes;
  if (attrs != null) {
    const scopes = Object.keys(attrs).sort() as AttributeScope[];
    for (const scope of scopes) {
      if (scope === ('__proto__' as string)) continue;
      const list = keyNames(attrs[scope]);
      if (list.length > 0) attributes[scope] = sortedUnique(list);
    }
  }
  return {
    entityTypes: sortedUnique(resp.entityTypes ?? []),
    timeseries: sortedUnique(keyNames(resp.timeseries)),
    attributes,
  };
}

/**
 * Normalises v1 answers (`POST /api/entitiesQuery/find/keys`), which filter attributes by one scope per call:
 * pass one `{scope, resp}` per call (`scope: null` for a call without a scope; its attribute keys, if any, go to
 * `attributes.ANY`).
 * Time-series keys come from `timeseriesResp` when given, otherwise from the union of the per-scope answers.
 * Entity types are the union of all answers.
 */
export function fromKeysV1(
  perScope: Array<{ scope: AttributeScope | null; resp: AvailableEntityKeys }>,
  timeseriesResp?: AvailableEntityKeys | null,
): NormalizedKeys {
  const entityTypes: string[] = [];
  const timeseries: string[] = [];
  const byScope: Partial<Record<AttributeScope | 'ANY', string[]>> = {};
  for (const { scope, resp } of perScope) {
    if (resp.entityTypes != null) entityTypes.push(...resp.entityTypes);
    if (timeseriesResp == null && resp.timeseries != null) timeseries.push(...resp.timeseries);
    if (resp.attribute != null && resp.attribute.length > 0) {
      const name = scope ?? 'ANY';
      const list = byScope[name] ?? (byScope[name] = []);
      list.push(...resp.attribute);
    }
  }
  if (timeseriesResp != null) {
    if (timeseriesResp.entityTypes != null) entityTypes.push(...timeseriesResp.entityTypes);
    if (timeseriesResp.timeseries != null) timeseries.push(...timeseriesResp.timeseries);
  }
  const attributes: NormalizedKeys['attributes'] = {};
  for (const scope of ATTRIBUTE_SCOPES) {
    const list = byScope[scope];
    if (list !== undefined) attributes[scope] = sortedUnique(list);
  }
  if (byScope.ANY !== undefined) attributes.ANY = sortedUnique(byScope.ANY);
  return { entityTypes: sortedUnique(entityTypes), timeseries: sortedUnique(timeseries), attributes };
}
