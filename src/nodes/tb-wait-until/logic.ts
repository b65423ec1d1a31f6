/**
 * tb-wait-until, the pure part: the node's settings, the condition (compiled once per wait and tested on
 * every value the entity reports), the timeout, the live queries that watch one entity, and the shape of
 * `msg.waited`. No I/O, no Node-RED. The condition itself (numbers, equality, the comparisons, the latest value of a
 * key, alarm states) is shared with tb-trigger: src/settings/conditions.ts.
 */
import { TbConfigError, TbInputError } from '../../errors';
import { DURATION_TEXT, durationText as saidDuration } from '../../protocol/duration';
import { flattenAlarm, type FlatAlarm } from '../../protocol/format';
import type { AlarmData, AlarmDataQuery, EntityDataQuery, EntityId, EntityKey } from '../../protocol/types';
import { got } from '../../protocol/validate';
import { shortValue } from '../../settings/condition-words';
import { alarmInState } from '../../settings/conditions';
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

export {
  compileCondition,
  isNumericText,
  latestActive,
  latestValue,
  listValue,
  numberOf,
  OPERATOR_TEXT,
  sameValue,
  type ValueCondition,
} from '../../settings/conditions';

/** The timeout of a wait when neither the node nor the message sets one: the node's default. */
export const DEFAULT_WAIT_TIMEOUT_MS = durationOption(
  { value: TB_WAIT_UNTIL.settings.timeout.default, field: 'timeout' },
  undefined,
) as number;
/** The waits one node runs at once, unless its settings say otherwise. */
export const DEFAULT_MAX_WAITS = TB_WAIT_UNTIL.settings.maxWaits.default as number;

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

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
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

/** Is the alarm in the state waited for? */
export function alarmMet(a: { acknowledged: boolean; cleared: boolean }, state: AlarmState): boolean {
  return alarmInState(a, state);
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
