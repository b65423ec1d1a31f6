/**
 * Keys (`{type, key}` of entityFields, latestValues, alarmFields and sort orders) and key filters: their predicates,
 * STRING, NUMERIC, BOOLEAN and nested COMPLEX ones, and the predicate values (default, user, dynamic), read as the
 * server reads them.
 */

import type {
  DynamicValue,
  EntityKey,
  EntityKeyValueType,
  FilterPredicateValue,
  KeyFilter,
  KeyFilterPredicate,
} from '../types';
import {
  BOOLEAN_OP,
  COMPLEX_OP,
  KEY_TYPE,
  NON_ALARM_KEY_TYPE,
  NUMERIC_OP,
  PREDICATE_TYPE,
  SOURCE_TYPE,
  STRING_OP,
  VALUE_TYPE,
  arr,
  bool,
  fail,
  got,
  isObject,
  nonEmptyStr,
  obj,
  oneOf,
  optBool,
  type Obj,
} from './primitives';

/** What the key filter checks need to know about the query they are in. */
export interface FilterContext {
  live: boolean;
  /** An entity data query (REST find resolves dynamic values; counts and alarm queries do not). */
  find: boolean;
}

/** How deep COMPLEX predicates may nest (guards against cyclic objects). */
const MAX_PREDICATE_DEPTH = 32;

export function entityKey(v: unknown, path: string, allowAlarmField: boolean): EntityKey {
  const o = obj(v, path, 'a key {"type": "TIME_SERIES", "key": "<name>"}');
  const t = o.type;
  let type: EntityKey['type'];
  if (allowAlarmField) {
    type = oneOf(t, KEY_TYPE, `${path}.type`);
  } else if (t === 'ALARM_FIELD') {
    fail(
      `${path}.type`,
      `${path}.type must be one of ${NON_ALARM_KEY_TYPE.text} (got "ALARM_FIELD", which is only allowed in an alarm ` +
        "query's alarmFields and sort order)",
    );
  } else {
    type = oneOf(t, NON_ALARM_KEY_TYPE, `${path}.type`);
  }
  return { type, key: nonEmptyStr(o.key, `${path}.key`) };
}

export function entityKeys(v: unknown, path: string, allowAlarmField: boolean): EntityKey[] {
  if (v == null) return [];
  const a = arr(v, path, 'an array of keys {"type", "key"}');
  const out: EntityKey[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = entityKey(a[i], `${path}[${i}]`, allowAlarmField);
  return out;
}

type ValueKind = 'string' | 'number' | 'boolean';
const KIND_TEXT: Readonly<Record<ValueKind, string>> = {
  string: 'a string',
  number: 'a finite number',
  boolean: 'true or false',
};

/** Java's `String.trim()`: strips every character up to U+0020 at both ends (JavaScript's trim strips others). */
function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return s.slice(a, b);
}

/** `NumberInput.looksLikeValidNumber` (jackson-core 2.19): an optional sign, digits, a dot, an exponent. */
const JACKSON_FLOAT_RE = /^[+-]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?$/;
const JACKSON_FLOAT_TRAILING_DOT_RE = /^[+-]?[0-9]+\.$/;

/**
 * What the server's Jackson makes of a JSON string where it expects a Double (a NUMERIC predicate's defaultValue,
 * userValue or resolvedValue): jackson-databind 2.19 `NumberDeserializers.DoubleDeserializer#_parseDouble` with
 * the default coercion settings. Exactly "NaN", "Infinity", "INF", "-Infinity", "-INF" are those values; empty or
 * blank text is null; otherwise the text is trimmed (Java's trim), "null" is null, and text that looks like a number
 * (sign, digits, dot, exponent; leading zeros allowed) is parsed by `Double.parseDouble`. Returns the number, `null`
 * for no value, or `undefined` when the server would refuse the request ("not a valid `Double` value").
 */
export function jacksonDouble(s: string): number | null | undefined {
  if (s === 'NaN') return NaN;
  if (s === 'Infinity' || s === 'INF') return Infinity;
  if (s === '-Infinity' || s === '-INF') return -Infinity;
  const t = javaTrim(s);
  if (t === '' || t === 'null') return null;
  if (JACKSON_FLOAT_RE.test(t) || JACKSON_FLOAT_TRAILING_DOT_RE.test(t)) return Number(t);
  return undefined;
}

/**
 * One predicate value (defaultValue, userValue, resolvedValue, or the bare shorthand) as the server reads it:
 * a number, string or boolean of the predicate's kind, or `null` when the server reads no value (a NUMERIC text
 * "", blank or "null"). Text for a NUMERIC value is sent as the number it stands for: the same value for the server
 * (REST and the WebSocket read it alike), and the wire query holds the type the protocol declares.
 */
function scalar(v: unknown, path: string, kind: ValueKind, what = KIND_TEXT[kind]): string | number | boolean | null {
  if (kind === 'number') {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string') {
      const n = jacksonDouble(v);
      if (n === null) return null;
      if (n !== undefined && Number.isFinite(n)) return n;
      return fail(path, `${path} must be ${what}, or its text such as "20" ${got(v)}`);
    }
  } else if (typeof v === kind) {
    return v as string | boolean;
  }
  return fail(path, `${path} must be ${what} ${got(v)}`);
}

function dynamicValue(v: unknown, path: string, kind: ValueKind): DynamicValue<unknown> {
  const o = obj(v, path, 'an object {sourceType, sourceAttribute, inherit}');
  const out: DynamicValue<unknown> = {
    sourceType: oneOf(o.sourceType, SOURCE_TYPE, `${path}.sourceType`),
    sourceAttribute: nonEmptyStr(o.sourceAttribute, `${path}.sourceAttribute`),
  };
  if (o.inherit != null) out.inherit = bool(o.inherit, `${path}.inherit`);
  if (o.resolvedValue != null) {
    const r = scalar(o.resolvedValue, `${path}.resolvedValue`, kind);
    if (r !== null) out.resolvedValue = r;
  }
  return out;
}

const RESOLVED_SOURCES = 'CURRENT_TENANT, CURRENT_CUSTOMER or CURRENT_USER';

/**
 * Refuses a CURRENT_DEVICE dynamic value that a REST endpoint would fail on or silently ignore (see the comment
 * of validate/index.ts). A live subscription takes it as the server does.
 */
function checkCurrentDevice(dyn: DynamicValue<unknown>, user: unknown, path: string, ctx: FilterContext): void {
  if (ctx.live || dyn.sourceType !== 'CURRENT_DEVICE' || dyn.resolvedValue != null) return;
  const p = `${path}.dynamicValue.sourceType`;
  if (ctx.find) {
    fail(
      p,
      `${p} must be ${RESOLVED_SOURCES} in an entity data query sent over REST (got "CURRENT_DEVICE": the server ` +
        'fails on it with "Not supported operation for source type", an internal error, even when userValue is set; ' +
        'or give dynamicValue.resolvedValue, which the server then uses as is)',
    );
  }
  if (user === null) {
    fail(
      p,
      `${p} must be ${RESOLVED_SOURCES} (got "CURRENT_DEVICE", which a REST count or alarm query never resolves: the ` +
        'server would silently use defaultValue; or give userValue or dynamicValue.resolvedValue)',
    );
  }
}

/**
 * FilterPredicateValue, or a bare scalar that becomes `{defaultValue}`. The server uses userValue if not null, else
 * dynamicValue.resolvedValue (the resolved attribute), else defaultValue (`FilterPredicateValue#getValue`), so one of
 * them must give a value.
 */
function predicateValue(v: unknown, path: string, kind: ValueKind, ctx: FilterContext): FilterPredicateValue<unknown> {
  if (!isObject(v)) {
    const what = `${KIND_TEXT[kind]} or an object {defaultValue, userValue, dynamicValue}`;
    if (v == null) return fail(path, `${path} must be ${what} ${got(v)}`);
    const x = scalar(v, path, kind, what);
    if (x === null) fail(path, `${path} must be ${what} ${got(v)}, which the server reads as no value`);
    return { defaultValue: x };
  }
  const user = v.userValue == null ? null : scalar(v.userValue, `${path}.userValue`, kind);
  const dyn = v.dynamicValue == null ? undefined : dynamicValue(v.dynamicValue, `${path}.dynamicValue`, kind);
  const def = v.defaultValue == null ? null : scalar(v.defaultValue, `${path}.defaultValue`, kind);
  if (def === null && user === null && dyn === undefined) {
    const p = `${path}.defaultValue`;
    const none =
      v.defaultValue == null ? got(v.defaultValue) : `${got(v.defaultValue)}, which the server reads as no value`;
    fail(p, `${p} must be ${KIND_TEXT[kind]} ${none}, unless userValue or dynamicValue gives the value`);
  }
  if (dyn !== undefined) checkCurrentDevice(dyn, user, path, ctx);
  const out: FilterPredicateValue<unknown> = { defaultValue: def };
  if (user !== null) out.userValue = user;
  if (dyn !== undefined) out.dynamicValue = dyn;
  return out;
}

function predicate(v: unknown, path: string, depth: number, ctx: FilterContext): KeyFilterPredicate {
  const o = obj(v, path, 'a predicate object with a "type"');
  const type = oneOf(o.type, PREDICATE_TYPE, `${path}.type`);
  switch (type) {
    case 'STRING': {
      const out: Obj = {
        type,
        operation: oneOf(o.operation, STRING_OP, `${path}.operation`),
        value: predicateValue(o.value, `${path}.value`, 'string', ctx),
      };
      optBool(o, 'ignoreCase', path, out);
      return out as unknown as KeyFilterPredicate;
    }
    case 'NUMERIC':
      return {
        type,
        operation: oneOf(o.operation, NUMERIC_OP, `${path}.operation`),
        value: predicateValue(o.value, `${path}.value`, 'number', ctx) as FilterPredicateValue<number>,
      };
    case 'BOOLEAN':
      return {
        type,
        operation: oneOf(o.operation, BOOLEAN_OP, `${path}.operation`),
        value: predicateValue(o.value, `${path}.value`, 'boolean', ctx) as FilterPredicateValue<boolean>,
      };
    default: {
      // An empty list is allowed: the server builds no condition from it (EntityKeyMapping#buildComplexPredicateQuery
      // gives "", which is dropped), so the key filter matches every entity, like an empty STRING value.
      const operation = oneOf(o.operation, COMPLEX_OP, `${path}.operation`);
      const p = `${path}.predicates`;
      const a = arr(o.predicates, p, 'an array of predicates');
      if (depth >= MAX_PREDICATE_DEPTH)
        fail(p, `${p} nests COMPLEX predicates deeper than ${MAX_PREDICATE_DEPTH} levels`);
      const predicates: KeyFilterPredicate[] = new Array(a.length);
      for (let i = 0; i < a.length; i++) predicates[i] = predicate(a[i], `${p}[${i}]`, depth + 1, ctx);
      return { type: 'COMPLEX', operation, predicates };
    }
  }
}

/**
 * valueType implied by a predicate: its own type, or that of the first simple predicate inside a COMPLEX one
 * (depth first, past empty groups); undefined when there is none. Tolerant of unchecked input, so the editor's
 * builder implies the same type as the runtime.
 */
export function impliedValueType(p: unknown, depth = 0): EntityKeyValueType | undefined {
  if (!isObject(p)) return undefined;
  if (p.type === 'STRING' || p.type === 'NUMERIC' || p.type === 'BOOLEAN') return p.type;
  if (p.type !== 'COMPLEX' || !Array.isArray(p.predicates) || depth >= MAX_PREDICATE_DEPTH) return undefined;
  for (const c of p.predicates as unknown[]) {
    const t = impliedValueType(c, depth + 1);
    if (t !== undefined) return t;
  }
  return undefined;
}

export function keyFilters(v: unknown, path: string, ctx: FilterContext): KeyFilter[] {
  if (v == null) return [];
  const a = arr(v, path, 'an array of key filters {key, valueType, predicate}');
  const out: KeyFilter[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const p = `${path}[${i}]`;
    const o = obj(a[i], p, 'a key filter {key, valueType, predicate}');
    const key = entityKey(o.key, `${p}.key`, false);
    const pred = predicate(o.predicate, `${p}.predicate`, 0, ctx);
    const valueType = o.valueType == null ? impliedValueType(pred) : oneOf(o.valueType, VALUE_TYPE, `${p}.valueType`);
    out[i] = valueType === undefined ? { key, predicate: pred } : { key, valueType, predicate: pred };
  }
  return out;
}
