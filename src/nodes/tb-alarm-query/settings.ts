/** tb-alarm-query's settings, declared once: the dialog, the runtime and the reference page read them. */
import { compactQuery } from '../../query-model/json-text';
import { defaultQuery } from '../../query-model/schema';
import { choice, connection, declareNode, text } from '../../settings/declare';
import { pagedResultSettings, querySettings, resultOutputSetting } from '../../settings/query';

/** Find the alarms, or count them. */
const ALARM_QUERY_OPERATIONS = ['find', 'count'] as const;

/** Besides flat and raw: `table`, one row per alarm for a table (see alarmRow). */
export const ALARM_TABLE_FORMAT = 'table';

export const TB_ALARM_QUERY = declareNode({
  type: 'tb-alarm-query',
  inputs: 1,
  outputs: 1,
  version: 2,
  settings: {
    name: text(),
    connection: connection(),
    operation: choice(ALARM_QUERY_OPERATIONS, 'find'),
    // A new node (operation find) finds the active alarms of every device, newest first, 100 a page.
    ...querySettings(compactQuery(defaultQuery('alarmData'))),
    ...pagedResultSettings([ALARM_TABLE_FORMAT]),
    output: resultOutputSetting(),
    // Count: msg.topic of the number (a chart's series); empty leaves msg.topic as it came.
    topic: text(),
  },
});
