/**
 * A condition on an entity's values, as the nodes that watch values read it (tb-wait-until, tb-trigger): the kinds of
 * key it reads and the operators it compares with (declared by their settings), the server's rules for what a value
 * is (numeric text, booleans, JSON), the compiled comparison, the latest value of a key in a live row, several
 * conditions joined by all or any, and which alarms are in a state. Pure: no I/O, no Node-RED; the dialogs use it too.
 *
 * Numbers: ThingsBoard stores a text that looks like a number as that number (`transport.json.type_cast_enabled`,
 * commons-lang `NumberUtils.isParsable` in its `JsonConverter`), and the WebSocket sends every latest value as text. So
 * a value that is numeric text compares as the number it stands for, on either side of the comparison: `"21"` equals
 * `21`, and `>` applies to `"21.5"` but not to `"warm"`.
 */
import { TbInputError } from '../errors';
import { parseValue } from '../protocol/format';
import type { AlarmData, EntityData, EntityKeyType } from '../protocol/types';
import { got, isObject } from '../protocol/validate';
import type { Sourced } from './options';

// ---- what a condition is made of ------------------------------------------------------------------------------

/** The kinds of key a condition reads: a time series, an attribute of a scope, or an entity field (name, label…). */
export const CONDITION_KEY_TYPES = [
  'TIME_SERIES',
  'SERVER_ATTRIBUTE',
  'SHARED_ATTRIBUTE',
  'CLIENT_ATTRIBUTE',
  'ENTITY_FIELD',
] as const;
export type ConditionKeyType = (typeof CONDITION_KEY_TYPES)[number];

/**
 * Every operator a condition may have: the comparisons, `in` / `nin` (is one of, none of a list), `changes` (any new
 * value) and `jsonata` (an expression that must become true).
 */
export const CONDITION_OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'nin', 'changes', 'jsonata'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/**
 * The operators of a condition that holds (or not) for as long as its value stays: every one but `changes` (an
 * event, not a state) and `jsonata` (evaluated apart from the compiled conditions).
 */
export const STATE_OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'nin'] as const;
export type StateOperator = (typeof STATE_OPERATORS)[number];

/** The operators that compare numbers (a value that is not one never meets them). */
export const ORDER_OPERATORS = ['lt', 'lte', 'gt', 'gte'] as const;

/** How several conditions (or several entities) are joined: every one must hold, or one is enough. */
export const JOIN_MODES = ['all', 'any'] as const;
export type JoinMode = (typeof JOIN_MODES)[number];

/** The symbols of the operators, for messages and statuses ("until temperature ≥ 21"). */
export const OPERATOR_TEXT: Readonly<Record<ConditionOperator, string>> = {
  eq: '=',
  neq: '≠',
  lt: '<',
  lte: '≤',
  gt: '>',
  gte: '≥',
  in: 'in',
  nin: 'not in',
  changes: 'changes',
  jsonata: 'JSONata',
};

// ---- numbers and equality -------------------------------------------------------------------------------------

/**
 * commons-lang3 `NumberUtils.isParsable`, the test ThingsBoard's JsonConverter applies before storing a text as a
 * number: an optional "-", digits, at most one ".", not ending with ".".
 */
export function isNumericText(s: string): boolean {
  const len = s.length;
  if (len === 0 || s.charCodeAt(len - 1) === 46) return false;
  let i = s.charCodeAt(0) === 45 ? 1 : 0;
  if (i === len) return false;
  let dot = false;
  let digit = false;
  for (; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (dot) return false;
      dot = true;
    } else if (c >= 48 && c <= 57) digit = true;
    else return false;
  }
  return digit;
}

/** The number a value stands for: a finite number, or numeric text; undefined for anything else. */
export function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && isNumericText(v)) return Number(v);
  return undefined;
}

/** JSON with sorted keys, so that two equal objects give one text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * What a value is for equality: a number (numbers and numeric text), a boolean (also the texts "true" and "false",
 * as the WebSocket sends a boolean), the canonical JSON of an object or array (also of a JSON text: a JSON value
 * arrives as text), else the text.
 */
function comparable(v: unknown): string | number | boolean | null {
  if (v === undefined || v === null) return null;
  const n = numberOf(v);
  if (n !== undefined) return n;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (v === 'true') return true;
    if (v === 'false') return false;
    const t = v.trim();
    if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
      try {
        return `\u0000${canonical(JSON.parse(t))}`;
      } catch {
        return v;
      }
    }
    return v;
  }
  if (typeof v === 'object') return `\u0000${canonical(v)}`;
  return String(v);
}

/** Equal under the rules above ("21" = 21, "true" = true, {a:1,b:2} = '{"b":2,"a":1}'). */
export function sameValue(a: unknown, b: unknown): boolean {
  const x = comparable(a);
  return x !== null && x === comparable(b);
}

/**
 * A list for `in` / `not in`: an array, or a text split as ThingsBoard splits an IN filter's value
 * (`CD/StringUtils.java#splitByCommaWithoutQuotes`): trimmed, split on commas with the spaces around
 * them, and the quotes stripped when every item has the same ones.
 */
export function listValue(v: unknown, field: string): unknown[] {
  let items: unknown[];
  if (Array.isArray(v)) items = v;
  else if (typeof v === 'string') {
    const parts = v.trim() === '' ? [] : v.trim().split(/\s*,\s*/);
    const quote =
      parts.length && parts.every((p) => p.length >= 2 && p[0] === p[p.length - 1] && (p[0] === '"' || p[0] === "'"))
        ? parts[0][0]
        : undefined;
    items = quote && parts.every((p) => p[0] === quote) ? parts.map((p) => p.slice(1, -1)) : parts;
  } else if (typeof v === 'number' || typeof v === 'boolean') items = [v];
  else
    return fail(
      field,
      `${field} must be a list for "in" / "not in": an array, or a text such as "idle, off" ${got(v)}`,
    );
  if (items.length === 0) fail(field, `${field} is an empty list: "in" would never be met and "not in" always`);
  return items;
}

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

// ---- the condition --------------------------------------------------------------------------------------

/** A compiled condition on one value (every operator but `jsonata`, which the node evaluates). */
export interface ValueCondition {
  readonly operator: Exclude<ConditionOperator, 'jsonata'>;
  /** Is the condition met by `value` (`previous` = the value seen before it, for `changes`; undefined = none)? */
  test(value: unknown, previous: unknown): boolean;
}

const ORDER: Record<'lt' | 'lte' | 'gt' | 'gte', (a: number, b: number) => boolean> = {
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
};

/**
 * A condition on one value, with the value it compares with (`compared`: its value and where it was read, for the
 * messages). Throws a TbInputError when the comparison cannot apply: a missing value, `<` on what is not a number
 * (numeric text counts), `in` without a list.
 */
export function compileCondition(
  operator: Exclude<ConditionOperator, 'jsonata'>,
  compared: Sourced | undefined,
): ValueCondition {
  if (operator === 'changes') {
    // Any value other than the one before (the first value of a key that had none counts).
    return {
      operator,
      test: (value, previous) =>
        value !== null &&
        value !== undefined &&
        (previous === undefined || previous === null || !sameValue(value, previous)),
    };
  }
  const field = compared?.field ?? 'value';
  const v = compared?.value;
  if (v === undefined || v === null || (typeof v === 'string' && v === '')) {
    fail(
      field,
      `${field} is ${v === '' ? 'empty' : 'missing'}: "${OPERATOR_TEXT[operator]}" needs a value to compare with`,
    );
  }
  switch (operator) {
    case 'eq':
    case 'neq': {
      const want = comparable(v);
      const eq = operator === 'eq';
      return {
        operator,
        test: (value) => value !== null && value !== undefined && (comparable(value) === want) === eq,
      };
    }
    case 'in':
    case 'nin': {
      const set = new Set(listValue(v, field).map(comparable));
      const inside = operator === 'in';
      return {
        operator,
        test: (value) => value !== null && value !== undefined && set.has(comparable(value)) === inside,
      };
    }
    default: {
      const n = numberOf(v);
      if (n === undefined) {
        fail(
          field,
          `${field} must be a number, or a text that is one such as "21", for "${OPERATOR_TEXT[operator]}" (the ` +
            `server's rule for numeric text: digits, one optional "." and a leading "-") ${got(v)}`,
        );
      }
      const cmp = ORDER[operator];
      // A value that is not a number (text such as "n/a", a boolean) does not meet an order: it is not an error, the
      // entity may report a number next.
      return {
        operator,
        test: (value) => {
          const x = numberOf(value);
          return x !== undefined && cmp(x, n);
        },
      };
    }
  }
}

// ---- the values of a live row ---------------------------------------------------------------------------------

/** The value of a key in an entity's latest values, typed (numbers, booleans from their text); undefined = none. */
export function latestValue(
  ed: EntityData | undefined,
  keyType: ConditionKeyType,
  key: string,
): { value: unknown; ts: number } | undefined {
  const tv = ed?.latest?.[keyType as EntityKeyType]?.[key];
  if (!tv) return undefined;
  // A deleted key arrives as ts 0 and "" (the WebSocket's deleted-key update); the server answers a missing one the
  // same way.
  if (tv.ts === 0 && (tv.value === '' || tv.value === null)) return undefined;
  return { value: parseValue(tv), ts: tv.ts };
}

/** One compiled condition of a set: the key it reads and its comparison. */
export interface KeyCondition {
  readonly keyType: ConditionKeyType;
  readonly key: string;
  readonly condition: ValueCondition;
}

/**
 * Do the conditions hold for this row, joined by `join` (all of them, or any)? A key without a value holds no
 * condition (not even "≠"): nothing is known of it yet.
 */
export function conditionsHold(
  conditions: readonly KeyCondition[],
  join: JoinMode,
  ed: EntityData | undefined,
): boolean {
  const any = join === 'any';
  for (const c of conditions) {
    const cur = latestValue(ed, c.keyType, c.key);
    const held = cur !== undefined && c.condition.test(cur.value, undefined);
    if (held === any) return any;
  }
  return !any;
}

// ---- alarms ---------------------------------------------------------------------------------------------------

/**
 * The states an alarm can be asked to be in: `active` (not cleared), `unacknowledged` (active and not acknowledged
 * yet), `acknowledged`, `cleared`, `either` (acknowledged or cleared).
 */
export type AlarmStateAsked = 'active' | 'unacknowledged' | 'acknowledged' | 'cleared' | 'either';

/** Is the alarm in the state asked? */
export function alarmInState(a: { acknowledged: boolean; cleared: boolean }, state: AlarmStateAsked): boolean {
  switch (state) {
    case 'active':
      return !a.cleared;
    case 'unacknowledged':
      return !a.cleared && !a.acknowledged;
    case 'acknowledged':
      return a.acknowledged;
    case 'cleared':
      return a.cleared;
    default:
      return a.acknowledged || a.cleared;
  }
}

/** Which alarms count: of these types and severities (undefined = any), in this state. */
export interface AlarmMatch {
  readonly types?: ReadonlySet<string>;
  readonly severities?: ReadonlySet<string>;
  readonly state: AlarmStateAsked;
}

/** Does the alarm count under `m`: its type, its severity, its state? */
export function alarmMatches(a: AlarmData, m: AlarmMatch): boolean {
  return (
    (!m.types || m.types.has(a.type)) && (!m.severities || m.severities.has(a.severity)) && alarmInState(a, m.state)
  );
}

/** The alarm to follow on a page of an entity's alarms of one type: the newest that is not cleared. */
export function latestActive(alarms: readonly AlarmData[]): AlarmData | undefined {
  let best: AlarmData | undefined;
  for (const a of alarms) if (!a.cleared && (!best || a.createdTime > best.createdTime)) best = a;
  return best;
}
