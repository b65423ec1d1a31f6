/** tb-alarm-status's settings, declared once: the dialog, the runtime and the reference page read them. */
import { choice, connection, declareNode, formatted, text } from '../../settings/declare';

/** The types of entity the node watches (an entity given as a bare id is of the chosen one). */
export const WATCHED_ENTITY_TYPES = ['DEVICE', 'ASSET', 'ENTITY_VIEW', 'CUSTOMER', 'EDGE', 'TENANT'] as const;

export const TB_ALARM_STATUS = declareNode({
  type: 'tb-alarm-status',
  inputs: 1,
  outputs: 1,
  version: 2,
  settings: {
    name: text(),
    connection: connection(),
    originatorType: choice(WATCHED_ENTITY_TYPES, 'DEVICE'),
    originatorId: text(),
    typeList: formatted('list', ''),
    severityList: formatted('list', ''),
  },
});
