/** tb-entity-count's settings, declared once: the dialog, the runtime and the reference page read them. */
import { compactQuery } from '../../query-model/json-text';
import { defaultQuery } from '../../query-model/schema';
import { connection, declareNode, text } from '../../settings/declare';
import { querySettings, resultOutputSetting } from '../../settings/query';

export const TB_ENTITY_COUNT = declareNode({
  type: 'tb-entity-count',
  inputs: 1,
  outputs: 1,
  version: 2,
  settings: {
    name: text(),
    connection: connection(),
    // A new node counts every device.
    ...querySettings(compactQuery(defaultQuery('entityCount'))),
    output: resultOutputSetting(),
    // msg.topic of the number (a chart's series); empty leaves msg.topic as it came.
    topic: text(),
  },
});
