/**
 * Key filter predicates compiled to plain functions: type-strict comparisons, missing values never
 * match, an empty string value disables a predicate, LIKE semantics for STARTS_WITH/ENDS_WITH/CONTAINS, the
 * IN / NOT_IN list splitting rule, COMPLEX nesting. Compiled once per request, evaluated per entity.
 */
import type { Dataset } from '../dataset';
import { general } from '../errors';
import { NULL_UUID, type Caller, type KvEntry } from '../types';
import { javaValueString } from '../values';
import type { Predicate, PredicateValue } from './parse';

/** A compiled test; `null` means "no condition" (a disabled predicate). */
export type Test = ((v: KvEntry | undefined) => boolean) | null;

// ---------------------------------------------------------------------------------------------------------------
// LIKE

type LikeToken = { k: 'lit'; s: string } | { k: 'any' } | { k: 'one' };

/** Compiles a SQL LIKE pattern (`%`, `_`, backslash escape) into a matcher; case-sensitive. */
export function compileLike(pattern: string): (s: string) => boolean {
  const tokens: LikeToken[] = [];
  let lit = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      lit += pattern[++i];
    } else if (c === '%' || c === '_') {
      if (lit) tokens.push({ k: 'lit', s: lit });
      lit = '';
      const last = tokens[tokens.length - 1];
      if (c === '%' && last && last.k === 'any') continue;
      tokens.push(c === '%' ? { k: 'any' } : { k: 'one' });
    } else {
      lit += c;
    }
  }
  if (lit) tokens.push({ k: 'lit', s: lit });
  // fast paths
  if (tokens.length === 0) return (s) => s === '';
  if (tokens.length === 1) {
    const t = tokens[0];
    if (t.k === 'lit') return (s) => s === t.s;
    if (t.k === 'any') return () => true;
  }
  if (tokens.length === 2 && tokens[0].k === 'lit' && tokens[1].k === 'any') {
    const p = tokens[0].s;
    return (s) => s.startsWith(p);
  }
  if (tokens.length === 2 && tokens[0].k === 'any' && tokens[1].k === 'lit') {
    const p = tokens[1].s;
    return (s) => s.endsWith(p);
  }
  if (tokens.length === 3 && tokens[0].k === 'any' && tokens[1].k === 'lit' && tokens[2].k === 'any') {
    const p = tokens[1].s;
    return (s) => s.includes(p);
  }
  return (s) => likeMatch(tokens, 0, s, 0);
}

function likeMatch(t: LikeToken[], ti: number, s: string, si: number): boolean {
  while (ti < t.length) {
    const tok = t[ti];
    if (tok.k === 'lit') {
      if (!s.startsWith(tok.s, si)) return false;
      si += tok.s.length;
      ti++;
    } else if (tok.k === 'one') {
      if (si >= s.length) return false;
      si++;
      ti++;
    } else {
      if (ti === t.length - 1) return true;
      for (let k = si; k <= s.length; k++) if (likeMatch(t, ti + 1, s, k)) return true;
      return false;
    }
  }
  return si === s.length;
}

/** Case-insensitive LIKE (Postgres ILIKE), used by name filters and textSearch. */
export function compileIlike(pattern: string): (s: string) => boolean {
  const m = compileLike(pattern.toLowerCase());
  return (s) => m(s.toLowerCase());
}

// ---------------------------------------------------------------------------------------------------------------
// IN splitting (StringUtils.splitByCommaWithoutQuotes)

const COMMA_SPLIT = /\s*,\s*/;

export function splitInList(value: string): string[] {
  const items = value.trim().split(COMMA_SPLIT);
  for (const q of ["'", '"']) {
    if (items.every((it) => it.length >= 2 && it.startsWith(q) && it.endsWith(q))) {
      return items.map((it) => it.slice(1, -1));
    }
  }
  return items;
}

// ---------------------------------------------------------------------------------------------------------------
// value resolution

export function predicateValue<T>(v: PredicateValue<T>): T | null {
  if (v.userValue !== null) return v.userValue;
  if (v.dynamicValue && v.dynamicValue.resolvedValue !== null) return v.dynamicValue.resolvedValue;
  return v.defaultValue;
}

function convertDynamic(e: KvEntry, type: 'STRING' | 'NUMERIC' | 'BOOLEAN'): string | number | boolean | null {
  if (type === 'STRING') return javaValueString(e);
  if (type === 'NUMERIC') {
    if (e.type === 'LONG' || e.type === 'DOUBLE') return e.value;
    if (e.type === 'STRING' && e.value.trim() !== '' && Number.isFinite(Number(e.value))) return Number(e.value);
    return null;
  }
  if (e.type === 'BOOLEAN') return e.value;
  if (e.type === 'STRING' && (e.value === 'true' || e.value === 'false')) return e.value === 'true';
  return null;
}

/**
 * Which code path resolves dynamic values:
 * - 'rest': REST find and v1 key discovery (`DefaultEntityQueryService#setResolvedValue`): only when the client sent
 *   no resolvedValue; CURRENT_DEVICE throws (a 500), even with a userValue;
 * - 'ws': every WebSocket subscription (`TbAbstractEntityQuerySubCtx#setAndResolveQuery`): see `resolveWs`;
 * - 'none': REST count, alarm find and count, v2 key discovery, which never resolve (the value is userValue, a
 *   client-sent resolvedValue, or defaultValue).
 */
export type DynamicResolution = 'rest' | 'ws' | 'none';

/** Fills `dynamicValue.resolvedValue` of every simple predicate the way the given path does. */
export function resolveDynamic(p: Predicate, ds: Dataset, caller: Caller, how: DynamicResolution): Predicate {
  if (how === 'none') return p;
  if (p.type === 'COMPLEX') return { ...p, predicates: p.predicates.map((c) => resolveDynamic(c, ds, caller, how)) };
  return how === 'rest' ? resolveRest(p, ds, caller) : resolveWs(p, ds, caller);
}

type SimplePredicate = Exclude<Predicate, { type: 'COMPLEX' }>;

function withResolved(p: SimplePredicate, resolved: string | number | boolean | null): Predicate {
  const dv = p.value.dynamicValue;
  // The three branches keep the predicate's own value type.
  switch (p.type) {
    case 'STRING':
      return {
        ...p,
        value: {
          ...p.value,
          dynamicValue: {
            ...dv,
            resolvedValue: typeof resolved === 'string' ? resolved : null,
          } as typeof p.value.dynamicValue,
        },
      };
    case 'NUMERIC':
      return {
        ...p,
        value: {
          ...p.value,
          dynamicValue: {
            ...dv,
            resolvedValue: typeof resolved === 'number' ? resolved : null,
          } as typeof p.value.dynamicValue,
        },
      };
    case 'BOOLEAN':
      return {
        ...p,
        value: {
          ...p.value,
          dynamicValue: {
            ...dv,
            resolvedValue: typeof resolved === 'boolean' ? resolved : null,
          } as typeof p.value.dynamicValue,
        },
      };
  }
}

function ownerOf(sourceType: string, caller: Caller): string | null {
  if (sourceType === 'CURRENT_TENANT') return caller.tenantId;
  if (sourceType === 'CURRENT_CUSTOMER') return caller.customerId;
  if (sourceType === 'CURRENT_USER') return caller.userId;
  return null;
}

/**
 * REST (DefaultEntityQueryService#setResolvedValue / #resolveDynamicValue): only when the client did not send a
 * resolvedValue; CURRENT_DEVICE is not supported (500); a found SERVER_SCOPE attribute is converted to the predicate
 * type (KvUtil), a missing one leaves resolvedValue null.
 */
function resolveRest(p: SimplePredicate, ds: Dataset, caller: Caller): Predicate {
  const dv = p.value.dynamicValue;
  if (!dv || dv.resolvedValue !== null || dv.sourceType === null) return p;
  if (dv.sourceType === 'CURRENT_DEVICE') throw general('Not supported operation for source type: {CURRENT_DEVICE}');
  const ownerId = ownerOf(dv.sourceType, caller);
  const owner = ownerId ? ds.get(ownerId) : undefined;
  const attr = owner && dv.sourceAttribute ? ds.getAttribute(owner, 'SERVER_SCOPE', dv.sourceAttribute) : undefined;
  if (!attr) return p;
  return withResolved(p, convertDynamic(attr, p.type));
}

/** Java's String.trim(). */
function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return s.slice(a, b);
}

/** Double.parseDouble of decimal text (hex floating point, which Java also reads, is not simulated). */
const JAVA_DOUBLE = /^[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)$/;
function javaParseDouble(s: string): number | null {
  const t = javaTrim(s);
  if (!JAVA_DOUBLE.test(t)) return null;
  return Number(/[fFdD]$/.test(t) && !t.endsWith('Infinity') ? t.slice(0, -1) : t);
}

/**
 * WebSocket (TbAbstractEntityQuerySubCtx): a predicate with a userValue is not registered; the SERVER_SCOPE attribute
 * of the tenant, the customer (not for a tenant user: a null customer id) or the user is read, CURRENT_DEVICE has no
 * case and is skipped. A found attribute replaces resolvedValue (a client-sent one included) with its text
 * (getValueAsString) converted: STRING as is, NUMERIC by Double.parseDouble (null when that fails), BOOLEAN by
 * Boolean.parseBoolean. A missing attribute leaves the client's resolvedValue (null or not) as it was.
 */
function resolveWs(p: SimplePredicate, ds: Dataset, caller: Caller): Predicate {
  const dv = p.value.dynamicValue;
  if (!dv || p.value.userValue !== null || dv.sourceType === null) return p;
  const ownerId = ownerOf(dv.sourceType, caller);
  if (!ownerId || ownerId === NULL_UUID) return p;
  const owner = ds.get(ownerId);
  const attr = owner && dv.sourceAttribute ? ds.getAttribute(owner, 'SERVER_SCOPE', dv.sourceAttribute) : undefined;
  if (!attr) return p;
  const text = javaValueString(attr);
  if (p.type === 'STRING') return withResolved(p, text);
  if (p.type === 'NUMERIC') return withResolved(p, javaParseDouble(text));
  return withResolved(p, text.toLowerCase() === 'true');
}

// ---------------------------------------------------------------------------------------------------------------
// compile

/**
 * Compiles a predicate. `entityField`: the value comes from an entity column (createdTime is numeric but
 * STRING predicates then compare its text).
 */
export function compilePredicate(p: Predicate, entityField = false): Test {
  switch (p.type) {
    case 'COMPLEX': {
      const parts = p.predicates
        .map((c) => compilePredicate(c, entityField))
        .filter((t): t is NonNullable<Test> => t !== null);
      if (parts.length === 0) return null;
      if (parts.length === 1) return parts[0];
      return p.operation === 'AND' ? (v) => parts.every((t) => t(v)) : (v) => parts.some((t) => t(v));
    }
    case 'STRING':
      return compileString(p, entityField);
    case 'NUMERIC': {
      const x = predicateValue(p.value);
      if (x === null) return () => false;
      const cmp = numericOp(p.operation, x);
      return (v) => v !== undefined && (v.type === 'LONG' || v.type === 'DOUBLE') && cmp(v.value);
    }
    case 'BOOLEAN': {
      const x = predicateValue(p.value);
      if (x === null) return () => false;
      return p.operation === 'EQUAL'
        ? (v) => v !== undefined && v.type === 'BOOLEAN' && v.value === x
        : (v) => v !== undefined && v.type === 'BOOLEAN' && v.value !== x;
    }
  }
}

function numericOp(op: string, x: number): (n: number) => boolean {
  switch (op) {
    case 'EQUAL':
      return (n) => n === x;
    case 'NOT_EQUAL':
      return (n) => n !== x;
    case 'GREATER':
      return (n) => n > x;
    case 'LESS':
      return (n) => n < x;
    case 'GREATER_OR_EQUAL':
      return (n) => n >= x;
    default:
      return (n) => n <= x;
  }
}

function compileString(p: Extract<Predicate, { type: 'STRING' }>, entityField: boolean): Test {
  let value = predicateValue(p.value);
  if (value === null || value === '') return null;
  const lower = p.ignoreCase;
  if (lower) value = value.toLowerCase();
  let test: (s: string) => boolean;
  switch (p.operation) {
    case 'EQUAL': {
      const x = value;
      test = (s) => s === x;
      break;
    }
    case 'NOT_EQUAL': {
      const x = value;
      test = (s) => s !== x;
      break;
    }
    case 'STARTS_WITH':
      test = compileLike(`${value}%`);
      break;
    case 'ENDS_WITH':
      test = compileLike(`%${value}`);
      break;
    case 'CONTAINS':
      test = compileLike(`%${value}%`);
      break;
    case 'NOT_CONTAINS': {
      const m = compileLike(`%${value}%`);
      test = (s) => !m(s);
      break;
    }
    case 'IN': {
      const set = new Set(splitInList(value));
      test = (s) => set.has(s);
      break;
    }
    case 'NOT_IN': {
      const set = new Set(splitInList(value));
      test = (s) => !set.has(s);
      break;
    }
  }
  return (v) => {
    if (v === undefined) return false;
    let s: string;
    if (v.type === 'STRING') s = v.value;
    else if (entityField && v.type === 'LONG') s = String(v.value);
    else return false;
    return test(lower ? s.toLowerCase() : s);
  };
}
