import assert from 'node:assert/strict';
import { QUERYABLE_ENTITY_TYPES } from '../../../src/protocol/types';
import { ALARM_FIELD_NAMES, ENTITY_FIELD_NAMES, entityFieldNames } from '../../../src/query-model/schema/names';

describe('query/schema/names: names for suggestions', () => {
  it('entity field names per entity type (§3.6)', () => {
    assert.deepEqual(entityFieldNames({ type: 'deviceType' }).slice(0, 3), ['name', 'type', 'label']);
    assert.ok(entityFieldNames({ type: 'entityType', entityType: 'TENANT' }).includes('region'));
    assert.ok(!entityFieldNames({ type: 'entityType', entityType: 'CUSTOMER' }).includes('region'));
    assert.equal(entityFieldNames({ type: 'entityType', entityType: 'USER' })[0], 'email');
    assert.deepEqual(entityFieldNames({ type: 'entityType', entityType: 'RULE_CHAIN' }), ENTITY_FIELD_NAMES.default);
    assert.ok(entityFieldNames({ type: 'relationsQuery', multiRoot: true }).includes('parentId'));
    assert.ok(!entityFieldNames({ type: 'relationsQuery' }).includes('parentId'));
    assert.deepEqual(
      entityFieldNames({ type: 'relationsQuery', filters: [{ entityTypes: ['ASSET'] }] }),
      ENTITY_FIELD_NAMES.ASSET,
    );
    assert.deepEqual(entityFieldNames(undefined), ENTITY_FIELD_NAMES.default);
    for (const t of QUERYABLE_ENTITY_TYPES)
      assert.ok(entityFieldNames({ type: 'entityType', entityType: t }).includes('createdTime'), t);
  });

  it('alarm field names: the text-search columns plus status and assignee', () => {
    for (const n of [
      'createdTime',
      'type',
      'severity',
      'originator',
      'originatorLabel',
      'assigneeEmail',
      'status',
      'assignee',
      'ackTime',
    ]) {
      assert.ok(ALARM_FIELD_NAMES.includes(n), n);
    }
    assert.equal(new Set(ALARM_FIELD_NAMES).size, ALARM_FIELD_NAMES.length);
  });
});
