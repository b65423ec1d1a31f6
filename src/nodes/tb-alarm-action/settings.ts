/** tb-alarm-action's settings, declared once: the dialog, the runtime and the reference page read them. */
import { ALARM_OPERATIONS } from '../../protocol/alarm-actions';
import { RESULT_FORMATS } from '../../protocol/format';
import { choice, connection, declareNode, flag, formatted, text } from '../../settings/declare';

/** The node's action: one of the operations, or `msg` (msg.operation names it for each message). */
export const ACTIONS = [...ALARM_OPERATIONS, 'msg'] as const;

/**
 * Where each value with a source comes from (its `<name>Type`): `auto` is the message property the node's rule names
 * (the alarm in msg.payload or msg.topic, msg.assignee, msg.comment, msg.payload.originator, msg.payload.details).
 */
export const ALARM_SOURCES = ['auto', 'msg', 'str', 'jsonata'] as const;
export const ASSIGNEE_SOURCES = ['auto', 'str', 'msg', 'jsonata'] as const;
export const COMMENT_SOURCES = ['auto', 'str', 'msg', 'jsonata'] as const;
export const ORIGINATOR_SOURCES = ['auto', 'json', 'msg', 'jsonata'] as const;
export const DETAILS_SOURCES = ['auto', 'json', 'msg', 'jsonata'] as const;

/** The types of the entity an alarm is raised on, when it is given as a bare id. */
export const ORIGINATOR_ENTITY_TYPES = [
  'DEVICE',
  'ASSET',
  'ENTITY_VIEW',
  'CUSTOMER',
  'EDGE',
  'TENANT',
  'USER',
  'DASHBOARD',
] as const;

export const TB_ALARM_ACTION = declareNode({
  type: 'tb-alarm-action',
  inputs: 1,
  outputs: 1,
  version: 2,
  settings: {
    name: text(),
    connection: connection(),
    operation: choice(ACTIONS, 'acknowledge'),
    alarm: text(),
    alarmType: choice(ALARM_SOURCES, 'auto'),
    assignee: text(),
    assigneeType: choice(ASSIGNEE_SOURCES, 'auto'),
    comment: text(),
    commentType: choice(COMMENT_SOURCES, 'auto'),
    originator: text(),
    originatorType: choice(ORIGINATOR_SOURCES, 'auto'),
    originatorEntityType: choice(ORIGINATOR_ENTITY_TYPES, 'DEVICE'),
    // The raise's settings that msg.payload gives when they are left empty.
    alarmName: text('', { fromMessage: 'msg.payload.type' }),
    severity: text('', { fromMessage: 'msg.payload.severity' }),
    details: text(),
    detailsType: choice(DETAILS_SOURCES, 'auto'),
    propagate: flag(false, { label: 'tb-alarm-action.label.propagateToRelated' }),
    propagateToOwner: flag(false),
    propagateToTenant: flag(false),
    propagateRelationTypes: formatted('list', '', { fromMessage: 'msg.payload.propagateRelationTypes' }),
    format: choice(RESULT_FORMATS, 'flat'),
    strict: flag(false),
  },
});

export type AlarmActionSettings = import('../../settings/declare').Values<typeof TB_ALARM_ACTION.settings>;
