/** tb-wait-until's settings, declared once: the dialog, the runtime and the reference page read them. */
import { CONDITION_KEY_TYPES, CONDITION_OPERATORS, JOIN_MODES } from '../../settings/conditions';
import { choice, connection, declareNode, duration, flag, text, whole } from '../../settings/declare';
import { targetEntityTypeSetting, targetSettings } from '../../settings/target';
import { VALUE_TYPES } from '../../settings/value-rows';

export const WAIT_FOR = ['value', 'alarm'] as const;
export const WAIT_KEY_TYPES = CONDITION_KEY_TYPES;
export const WAIT_OPERATORS = CONDITION_OPERATORS;
export const ALARM_STATES = ['acknowledged', 'cleared', 'either'] as const;
export const LIST_MODES = JOIN_MODES;

export type WaitFor = (typeof WAIT_FOR)[number];
export type WaitKeyType = (typeof WAIT_KEY_TYPES)[number];
export type WaitOperator = (typeof WAIT_OPERATORS)[number];
export type AlarmState = (typeof ALARM_STATES)[number];
export type ListMode = (typeof LIST_MODES)[number];

export const TB_WAIT_UNTIL = declareNode({
  type: 'tb-wait-until',
  inputs: 1,
  outputs: 2,
  version: 3,
  settings: {
    name: text(),
    connection: connection(),
    ...targetSettings(),
    targetEntityType: targetEntityTypeSetting(),
    waitFor: choice(WAIT_FOR, 'value'),
    keyType: choice(WAIT_KEY_TYPES, 'TIME_SERIES'),
    key: text(),
    operator: choice(WAIT_OPERATORS, 'eq'),
    value: text(),
    valueType: choice(VALUE_TYPES, 'str'),
    alarmState: choice(ALARM_STATES, 'acknowledged'),
    alarmType: text(),
    listMode: choice(LIST_MODES, 'all'),
    checkCurrent: flag(true),
    // 0: no limit.
    timeout: duration('30s', { min: 0 }, { fromMessage: 'msg.timeout' }),
    maxWaits: whole(1000, { min: 1 }),
  },
});

export type WaitUntilSettings = import('../../settings/declare').Values<typeof TB_WAIT_UNTIL.settings>;
