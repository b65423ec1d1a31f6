/**
 * tb-wait-until, the pure part: the node's settings, the condition (compiled once per wait and tested on
 * every value the entity reports), the timeout, the live queries that watch one entity, and the shape of
 * `msg.waited`. No I/O, no Node-RED.
 *
 * Numbers: ThingsBoard stores a text that looks like a number as that number (`transport.json.type_cast_enabled`,
 * commons-lang `NumberUtils.isParsable` in its `JsonConverter`), and the WebSocket sends every latest value as text. So
 * a value that is numeric text compares as the number it stands for, on either side of the comparison: `"21"` equals
 * `21`, and `>` applies to `"21.5"` but not to `"warm"`.
 */
import { TbConfigError, TbInputError } from '../../errors';
import { DURATION_TEXT, durationText as saidDuration } from '../../protocol/duration';
import { flattenAlarm, parseValue, type FlatAlarm } from '../../protocol/format';
import type {
  AlarmData,
  AlarmDataQuery,
  EntityData,
  EntityDataQuery,
  EntityId,
  EntityKey,
  EntityKeyType,
} from '../../protocol/types';
import { got, isObject } from '../../protocol/validate';
import type { Sourced } from '../../settings/options';
import { durationOption } from '../../settings/options';
import { readSettings } from '../../settings/read';
import {
  TB_WAIT_UNTIL,
  type AlarmState,
  type ListMode,
  type WaitFor,
  type WaitKeyType,
  type WaitOperator,
} from './settings';

/** The timeout of a wait when neither the node nor the message sets one: the node's default. */
export const DEFAULT_WAIT_TIMEOUT_MS = durationOption(
  { value: TB_WAIT_UNTIL.settings.timeout.default, field: 'timeout' },
  undefined,
) as number;
/** The waits one node runs at once, unless its settings say otherwise. */
export const DEFAULT_MAX_WAITS = TB_WAIT_UNTIL.settings.maxWaits.default as number;

/** The symbols of the operators, for messages and statuses ("until temperature ≥ 21"). */
export const OPERATOR_TEXT: Readonly<Record<WaitOperator, string>> = {
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

/** The node's settings other than the entity and the compared value, checked at deploy. */
export interface WaitSettings {
  waitFor: WaitFor;
  keyType: WaitKeyType;
  key: string;
  operator: WaitOperator;
  alarmState: AlarmState;
  /** "the latest active alarm of type T on the entity"; empty = the alarm named by the message. */
  alarmType: string;
  listMode: ListMode;
  checkCurrent: boolean;
  maxWaits: number;
}

/**
 * The settings of a tb-wait-until node as it saved them (after its migrations): read by its declaration, then its own
 * rule (a value wait names its key). Throws a TbConfigError naming the setting.
 */
export function prepareWaitSettings(saved: Readonly<Record<string, unknown>>): WaitSettings {
  const { values: v, problems } = readSettings(TB_WAIT_UNTIL, saved);
  if (problems.length) throw problems[0];
  const key = v.key.trim();
  if (v.waitFor === 'value' && key === '')
    throw new TbConfigError(
      `key must name the ${v.keyType === 'ENTITY_FIELD' ? 'entity field' : v.keyType === 'TIME_SERIES' ? 'time series' : 'attribute'} to wait for (e.g. temperature)`,
    );
  return {
    waitFor: v.waitFor,
    keyType: v.keyType,
    key,
    operator: v.operator,
    alarmState: v.alarmState,
    alarmType: v.alarmType.trim(),
    listMode: v.listMode,
    checkCurrent: v.checkCurrent,
    maxWaits: v.maxWaits ?? DEFAULT_MAX_WAITS,
  };
}

// ---- numbers and equality -------------------------------------------------------------------------------

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

/** A compiled condition of a value wait (every operator but `jsonata`, which the node evaluates). */
export interface ValueCondition {
  readonly operator: Exclude<WaitOperator, 'jsonata'>;
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
 * The condition of one wait, with the value it compares with (`compared`: its value and where it was read, for the
 * messages). Throws a TbInputError when the comparison cannot apply: a missing value, `<` on what is not a number
 * (numeric text counts), `in` without a list.
 */
export function compileCondition(
  operator: Exclude<WaitOperator, 'jsonata'>,
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

// ---- timeout --------------------------------------------------------------------------------------------

/** The longest timer Node.js runs in one go (a longer wait re-arms it). */
export const MAX_TIMER_MS = 2147483647;

/**
 * The timeout of one wait, in ms (0 = no limit): the node's `timeout` setting when set, else `msg.timeout`, else 30 s.
 * A number is ms; a text is a duration such as `90s`, `10m`, `2h`. Throws a TbInputError.
 */
export function prepareTimeout(setting: unknown, fromMsg: unknown): number {
  const set = !(setting === undefined || setting === null || (typeof setting === 'string' && setting.trim() === ''));
  if (!set && (fromMsg === undefined || fromMsg === null)) return DEFAULT_WAIT_TIMEOUT_MS;
  const s: Sourced = set ? { value: setting, field: 'timeout' } : { value: fromMsg, field: 'msg.timeout' };
  try {
    return durationOption(s, DEFAULT_WAIT_TIMEOUT_MS, 0) as number;
  } catch {
    return fail(s.field, `${s.field} must be ${DURATION_TEXT}, or 0 for no limit ${got(s.value)}`);
  }
}

/** "30 s", "10 min", "2 h", for statuses and messages ("no limit" for 0). */
export function durationText(ms: number): string {
  return ms === 0 ? 'no limit' : saidDuration(ms);
}

// ---- what is watched ------------------------------------------------------------------------------------

/** The value of a key in an entity's latest values, typed (numbers, booleans from their text); undefined = none. */
export function latestValue(
  ed: EntityData | undefined,
  keyType: WaitKeyType,
  key: string,
): { value: unknown; ts: number } | undefined {
  const tv = ed?.latest?.[keyType as EntityKeyType]?.[key];
  if (!tv) return undefined;
  // A deleted key arrives as ts 0 and "" (the WebSocket's deleted-key update); the server answers a missing one the
  // same way.
  if (tv.ts === 0 && (tv.value === '' || tv.value === null)) return undefined;
  return { value: parseValue(tv), ts: tv.ts };
}

const SINGLE = (entity: EntityId) => ({
  type: 'singleEntity' as const,
  singleEntity: { entityType: entity.entityType, id: entity.id },
});

/**
 * The live query that watches one key of one entity (one ENTITY_DATA subscription, shared by every wait of a node
 * on that entity). An entity field only changes on the server's re-query of a dynamic page, so it asks for one.
 */
export function valueWatchQuery(entity: EntityId, keyType: WaitKeyType, key: string): EntityDataQuery {
  const k: EntityKey = { type: keyType, key };
  const field = keyType === 'ENTITY_FIELD';
  return {
    entityFilter: SINGLE(entity),
    entityFields: field ? [k] : [],
    latestValues: field ? [] : [k],
    pageLink: { page: 0, pageSize: 1, ...(field ? { dynamic: true } : {}) },
  };
}

/** Alarms of one entity kept on the live page: the newest first, enough for any real entity's alarms of one type. */
export const ALARM_PAGE_SIZE = 100;

/**
 * The live query that watches the alarms of one entity (of one type when given), every status: an alarm stays on
 * the page when it is cleared, so both its acknowledgement and its clearing arrive as updates.
 */
export function alarmWatchQuery(entity: EntityId, type: string | undefined): AlarmDataQuery {
  return {
    entityFilter: SINGLE(entity),
    pageLink: {
      page: 0,
      pageSize: ALARM_PAGE_SIZE,
      ...(type ? { typeList: [type] } : {}),
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
    },
    alarmFields: [
      { type: 'ALARM_FIELD', key: 'createdTime' },
      { type: 'ALARM_FIELD', key: 'type' },
      { type: 'ALARM_FIELD', key: 'status' },
    ],
  };
}

/** The alarm to follow on a page of an entity's alarms of one type: the newest that is not cleared. */
export function latestActive(alarms: readonly AlarmData[]): AlarmData | undefined {
  let best: AlarmData | undefined;
  for (const a of alarms) if (!a.cleared && (!best || a.createdTime > best.createdTime)) best = a;
  return best;
}

/** Is the alarm in the state waited for? */
export function alarmMet(a: { acknowledged: boolean; cleared: boolean }, state: AlarmState): boolean {
  if (state === 'acknowledged') return a.acknowledged;
  if (state === 'cleared') return a.cleared;
  return a.acknowledged || a.cleared;
}

/**
 * An alarm as a wait reports it: `value` = its status (ACTIVE_UNACK, ACTIVE_ACK, CLEARED_UNACK, CLEARED_ACK), `ts`
 * = when it reached the state waited for (ackTs, clearTs; for either the first of them), else its last change.
 */
export function alarmReading(a: AlarmData, state: AlarmState): { value: unknown; ts: number; alarm: FlatAlarm } {
  const ack = a.acknowledged && a.ackTs > 0 ? a.ackTs : 0;
  const clear = a.cleared && a.clearTs > 0 ? a.clearTs : 0;
  let ts: number;
  if (state === 'acknowledged' && ack) ts = ack;
  else if (state === 'cleared' && clear) ts = clear;
  else if (state === 'either' && (ack || clear)) ts = ack && clear ? Math.min(ack, clear) : ack || clear;
  else ts = Math.max(a.createdTime ?? 0, ack, clear);
  return { value: a.status, ts, alarm: flattenAlarm(a) };
}

// ---- the output -----------------------------------------------------------------------------------------

/** One entity of a wait as the output reports it. */
export interface EntityOutcome {
  entity: EntityId;
  met: boolean;
  /** The value that met the condition, or the last one seen; null when none was seen. */
  value: unknown;
  ts: number | null;
  /** Alarm waits: the alarm followed (tb-alarm-query's flat form); null when there was none. */
  alarm?: FlatAlarm | null;
}

/** Is the wait over? `all`: every entity met; `any`: one did. */
export function listMet(mode: ListMode, outcomes: readonly EntityOutcome[]): boolean {
  return mode === 'any' ? outcomes.some((o) => o.met) : outcomes.every((o) => o.met);
}

/**
 * `msg.waited`: for one entity `{ met, value, ts, ms, entity }` (+ `alarm` for an alarm wait); for a list
 * `{ met, ms, entities: [{ entity, met, value, ts (, alarm) }, …] }` in the list's order.
 */
export function waitedOf(
  outcomes: readonly EntityOutcome[],
  list: boolean,
  met: boolean,
  ms: number,
  alarm: boolean,
): Record<string, unknown> {
  if (!list) {
    const o = outcomes[0];
    const out: Record<string, unknown> = { met, value: o.value, ts: o.ts, ms, entity: o.entity };
    if (alarm) out.alarm = o.alarm ?? null;
    return out;
  }
  return {
    met,
    ms,
    entities: outcomes.map((o) => {
      const e: Record<string, unknown> = { entity: o.entity, met: o.met, value: o.value, ts: o.ts };
      if (alarm) e.alarm = o.alarm ?? null;
      return e;
    }),
  };
}

/** A value as a short text: text, numbers and booleans as they are, anything else as JSON, at most 40 characters. */
function shortValue(v: unknown): string {
  let s: string;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') s = String(v);
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = String(v);
    }
  }
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}

/**
 * What happened, in a few words, for msg.topic (a debug node shows it above msg.payload, which the wait passes on
 * untouched): "met: temperature 21", "timed out after 30 s: temperature 19.5", "met: 3 of 3 entities",
 * "timed out after 30 s: 1 of 3 entities met", "met: alarm ACTIVE_ACK". `what`: the key waited on, or "alarm".
 */
export function waitedTopic(
  outcomes: readonly EntityOutcome[],
  list: boolean,
  met: boolean,
  timeoutMs: number,
  what: string,
): string {
  const head = met ? 'met' : `timed out after ${durationText(timeoutMs)}`;
  if (list) {
    const n = outcomes.filter((o) => o.met).length;
    return met ? `${head}: ${n} of ${outcomes.length} entities` : `${head}: ${n} of ${outcomes.length} entities met`;
  }
  const o = outcomes[0];
  if (o.value === null || o.value === undefined) return `${head}: no ${what} seen`;
  return `${head}: ${what} ${shortValue(o.value)}`;
}
