/** tb-entity-query's settings, declared once: the dialog, the runtime and the reference page read them. */
import { compactQuery } from '../../query-model/json-text';
import { defaultQuery } from '../../query-model/schema';
import { choice, connection, declareNode, flag, formatted, text } from '../../settings/declare';
import { pagedResultSettings, querySettings, resultOutputSetting } from '../../settings/query';

/** Find the entities, or list the keys of the entities found. */
const ENTITY_QUERY_OPERATIONS = ['find', 'keys'] as const;

export const TB_ENTITY_QUERY = declareNode({
  type: 'tb-entity-query',
  inputs: 1,
  outputs: 1,
  version: 2,
  settings: {
    name: text(),
    connection: connection(),
    operation: choice(ENTITY_QUERY_OPERATIONS, 'find'),
    // A new node finds every device, with its name, type and label, 100 a page by name.
    ...querySettings(compactQuery(defaultQuery('entityData'))),
    ...pagedResultSettings(),
    keysTimeseries: flag(true),
    keysAttributes: flag(true),
    // A comma-separated list of attribute scopes (ATTRIBUTE_SCOPES); empty: every scope.
    keysScopes: formatted('list', ''),
    output: resultOutputSetting(),
  },
});
