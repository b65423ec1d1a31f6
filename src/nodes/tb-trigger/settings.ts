/** tb-trigger's settings, declared once: the dialog, the runtime and the reference page read them. */
import { ALARM_SEVERITIES } from '../../protocol/types';
import { compactQuery } from '../../query-model/json-text';
import { defaultQuery } from '../../query-model/schema';
import {
  CONDITION_KEY_TYPES,
  JOIN_MODES,
  STATE_OPERATORS,
  type ConditionKeyType,
  type JoinMode,
  type StateOperator,
} from '../../settings/conditions';
import { choice, connection, declareNode, duration, flag, formatted, rows, text, whole } from '../../settings/declare';
import { querySettings } from '../../settings/query';
import { targetEntityTypeSetting, targetSettings } from '../../settings/target';
import type { ValueType } from '../../settings/value-rows';

/**
 * What the node watches: `entity`, the entity (or list) of `target`, picked by name or typed, from the deploy on;
 * `query`, the entities a built query finds (a dynamic query follows its list as entities come and go); `message`,
 * the entities messages name (`msg.entity`, read as `targetType` says), each from its message on, until one says
 * `msg.action = "unwatch"`.
 */
/** The builder's neutral query of entity data, with a page for a fleet that follows its list (dynamic). */
function fleetQuery(): Record<string, unknown> {
  const q = defaultQuery('entityData');
  return { ...q, pageLink: { ...(q.pageLink as Record<string, unknown>), pageSize: 1000, dynamic: true } };
}

export const TRIGGER_WATCH = ['entity', 'query', 'message'] as const;
export type TriggerWatch = (typeof TRIGGER_WATCH)[number];

/**
 * What must hold: `value`, the conditions on the entity's values (`conditions`, joined by `join`); `alarm`, an alarm
 * of the entity in the state `alarmState` (of the type and severities given, any when empty); `silence`, no update
 * of the keys `silenceKeys` for `silentFor`.
 */
export const TRIGGER_CONDITIONS = ['value', 'alarm', 'silence'] as const;
export type TriggerCondition = (typeof TRIGGER_CONDITIONS)[number];

/** The alarm state that holds: the alarm is active (acknowledged or not), or active and not acknowledged yet. */
export const TRIGGER_ALARM_STATES = ['active', 'unacknowledged'] as const;
export type TriggerAlarmState = (typeof TRIGGER_ALARM_STATES)[number];

/** The kinds of key and the operators of a condition row: tb-wait-until's, but `changes` and `jsonata`. */
export const TRIGGER_KEY_TYPES = CONDITION_KEY_TYPES;
export const TRIGGER_OPERATORS = STATE_OPERATORS;
/** The severities an alarm condition may name (`severities`, a list; empty = any). */
export const TRIGGER_SEVERITIES = ALARM_SEVERITIES;

/**
 * One row of `conditions`, as the dialog saves it: the key read (`keyType`, `key`), the operator, and the value
 * compared with as a TypedInput holds it (`value`, `valueType`: fixed, with `{{…}}` placeholders, or read from the
 * message, the context or the environment when the entity starts being watched).
 */
export interface ConditionRow {
  keyType: ConditionKeyType;
  key: string;
  operator: StateOperator;
  value: string;
  valueType: ValueType;
}

export const TB_TRIGGER = declareNode({
  type: 'tb-trigger',
  inputs: 1,
  outputs: 2,
  version: 1,
  settings: {
    name: text(),
    connection: connection(),
    watch: choice(TRIGGER_WATCH, 'query'),
    // watch = entity: the entity, picked by name (json); watch = message: where the message names it.
    ...targetSettings(),
    targetEntityType: targetEntityTypeSetting(),
    // watch = query: the query a new node starts with, the builder's neutral query of entity data, for a fleet:
    // a page of 1,000 that follows its list as devices come and go.
    ...querySettings(compactQuery(fleetQuery())),
    condition: choice(TRIGGER_CONDITIONS, 'value'),
    // condition = value: the rows (ConditionRow), every one holding or one of them.
    conditions: rows(),
    join: choice(JOIN_MODES, 'all'),
    // condition = alarm: empty type and severities = any.
    alarmType: text(),
    severities: formatted('list', ''),
    alarmState: choice(TRIGGER_ALARM_STATES, 'active'),
    // condition = silence: the time series whose updates count, and how long without one.
    silenceKeys: formatted('list', ''),
    silentFor: duration('1h', { min: 0, above: true }),
    // How long the condition must hold before "became true" (0: at once), and stop holding before "became false".
    holdFor: duration('0', { min: 0 }),
    holdOffFor: duration('0', { min: 0 }),
    // A reminder on the first output while it stays true: every repeatEvery (empty: none), at most repeatMax times
    // (empty: no limit).
    repeatEvery: duration('', { min: 0, above: true, optional: true }),
    repeatMax: whole('', { min: 1, optional: true }),
    // Every entity's state once, on its output, when watching starts.
    sendInitial: flag(false),
    maxEntities: whole(10000, { min: 1 }),
  },
});

export type TriggerSettings = import('../../settings/declare').Values<typeof TB_TRIGGER.settings>;
export type { ConditionKeyType, JoinMode, StateOperator };
