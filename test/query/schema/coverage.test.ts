import assert from 'node:assert/strict';
import { heldPaths } from '../../../src/query-model/paths';
import { builderCoverage } from '../../../src/query-model/schema/coverage';
import { defaultQuery } from '../../../src/query-model/schema/modes';
import { QUERY_MODES } from '../../../src/query-model/schema/spec';
import { U1 } from '../helpers';

describe('query/schema/coverage: what the builder shows', () => {
  it('builderCoverage: a default query holds nothing; fields without a control are held', () => {
    for (const m of QUERY_MODES)
      assert.deepEqual(heldPaths(defaultQuery(m), builderCoverage(m, defaultQuery(m))), [], m);
    const q = {
      entityFilter: {
        type: 'relationsQuery',
        rootEntity: { entityType: 'ASSET', id: U1 },
        direction: 'FROM',
        rootStateEntity: true,
        resolveMultiple: true,
      },
      keyFilters: [
        {
          key: { type: 'TIME_SERIES', key: 't' },
          valueType: 'NUMERIC',
          predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 1, resolvedValue: 3 } },
          note: 'x',
        },
      ],
      pageLink: { pageSize: 10, page: 0, sortOrder: null, dynamic: true, statusList: ['ACTIVE'] },
      entityFields: [],
      latestValues: [{ type: 'TIME_SERIES', key: 't' }],
      extra: { a: [1] },
    };
    assert.deepEqual(heldPaths(q, builderCoverage('entityData', q)), [
      'entityFilter.rootStateEntity',
      'entityFilter.resolveMultiple',
      'keyFilters.0.predicate.value.resolvedValue',
      'keyFilters.0.note',
      'pageLink.dynamic',
      'pageLink.statusList.0',
      'extra.a.0',
    ]);
    // A live subscription has the "dynamic" control.
    assert.ok(!heldPaths(q, builderCoverage('entityData', q, { live: true })).includes('pageLink.dynamic'));
    // Nested groups: every level's operation and values are covered, a userValue is held.
    const nested = {
      ...defaultQuery('entityCount'),
      keyFilters: [
        {
          key: { type: 'TIME_SERIES', key: 't' },
          valueType: 'NUMERIC',
          predicate: {
            type: 'COMPLEX',
            operation: 'OR',
            predicates: [
              { type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 0 } },
              {
                type: 'COMPLEX',
                operation: 'AND',
                predicates: [{ type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 5, userValue: 6 } }],
              },
            ],
          },
        },
      ],
    };
    assert.deepEqual(heldPaths(nested, builderCoverage('entityCount', nested)), [
      'keyFilters.0.predicate.predicates.1.predicates.0.value.userValue',
    ]);
    // An entity count shows no page or fields; a multiRoot relation query does not show rootEntity.
    const count = {
      ...q,
      entityFilter: { ...q.entityFilter, multiRoot: true, multiRootEntitiesType: 'ASSET', multiRootEntityIds: [U1] },
    };
    const held = heldPaths(count, builderCoverage('entityCount', count));
    assert.ok(
      held.includes('entityFilter.rootEntity.id') &&
        held.includes('pageLink.pageSize') &&
        held.includes('latestValues.0.key'),
    );
    assert.ok(!held.includes('entityFilter.multiRootEntityIds.0'));
    // Alarm counts hold pageLink filter fields (they only fill blanks) but cover the top-level ones.
    const ac = { statusList: ['ACTIVE'], severityList: [], pageLink: { typeList: ['x'] } };
    assert.deepEqual(heldPaths(ac, builderCoverage('alarmCount', ac)), ['pageLink.typeList.0']);
    const ad = defaultQuery('alarmData') as { pageLink: Record<string, unknown> };
    ad.pageLink.dynamic = true;
    assert.deepEqual(heldPaths(ad, builderCoverage('alarmData', ad)), ['pageLink.dynamic']);
  });
});
