import assert from 'node:assert/strict';
import {
  DYNAMIC_VALUE_SOURCE_TYPES,
  ENTITY_KEY_TYPES,
  ENTITY_KEY_VALUE_TYPES,
  FILTER_PREDICATE_TYPES,
} from '../../../src/protocol/types';
import { prepareAlarmDataQuery, prepareEntityCountQuery, prepareEntityDataQuery } from '../../../src/protocol/validate';
import { newEntityFilter } from '../../../src/query-model/schema/filters';
import {
  KEY_TYPES_FOR,
  OPERATION_LABELS,
  PREDICATE_OPERATIONS,
  VALUE_TYPE_PREDICATES,
  dynamicSourceTypes,
  newKeyFilter,
  newPredicate,
} from '../../../src/query-model/schema/keys';
import { QUERY_MODES } from '../../../src/query-model/schema/spec';
import { throwsInput } from '../helpers';

describe('query/schema/keys: key filter tables', () => {
  it('operations per predicate type are the validator lists, each with a label', () => {
    for (const t of FILTER_PREDICATE_TYPES) {
      for (const op of PREDICATE_OPERATIONS[t]) assert.ok(OPERATION_LABELS[t][op], `${t} ${op}`);
      assert.equal(Object.keys(OPERATION_LABELS[t]).length, PREDICATE_OPERATIONS[t].length);
    }
  });

  it('every new predicate and key filter passes the validator once the key is named', () => {
    for (const vt of ENTITY_KEY_VALUE_TYPES) {
      const kf = newKeyFilter(vt) as { key: { key: string } };
      throwsInput(
        () => prepareEntityCountQuery({ entityFilter: newEntityFilter('entityType'), keyFilters: [kf] }),
        'query.keyFilters[0].key.key',
      );
      kf.key.key = 'temperature';
      const out = prepareEntityCountQuery({ entityFilter: newEntityFilter('entityType'), keyFilters: [kf] });
      assert.equal(out.keyFilters![0].valueType, vt);
      assert.equal(out.keyFilters![0].predicate.type, VALUE_TYPE_PREDICATES[vt]);
    }
    for (const pt of FILTER_PREDICATE_TYPES) {
      for (const op of PREDICATE_OPERATIONS[pt]) {
        const predicate = { ...newPredicate(pt), operation: op };
        const keyFilters = [{ key: { type: 'ATTRIBUTE', key: 'k' }, predicate }];
        assert.doesNotThrow(
          () => prepareEntityCountQuery({ entityFilter: newEntityFilter('entityType'), keyFilters }),
          `${pt} ${op}`,
        );
      }
    }
    assert.deepEqual(newPredicate('COMPLEX', 'STRING'), {
      type: 'COMPLEX',
      operation: 'AND',
      predicates: [
        { type: 'STRING', operation: 'EQUAL', value: { defaultValue: '', dynamicValue: null }, ignoreCase: false },
      ],
    });
  });

  it('dynamic sources: never CURRENT_DEVICE, which no query path resolves (§5.6)', () => {
    for (const m of QUERY_MODES) {
      assert.deepEqual(dynamicSourceTypes(m, false), ['CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER']);
      assert.deepEqual(dynamicSourceTypes(m, true), ['CURRENT_TENANT', 'CURRENT_CUSTOMER', 'CURRENT_USER']);
    }
    assert.ok(DYNAMIC_VALUE_SOURCE_TYPES.includes('CURRENT_DEVICE')); // still a known value: the validator names it
  });

  it('key types per list agree with the validator', () => {
    const ef = newEntityFilter('entityType');
    for (const t of KEY_TYPES_FOR.keyFilters) {
      assert.doesNotThrow(() =>
        prepareEntityCountQuery({
          entityFilter: ef,
          keyFilters: [{ key: { type: t, key: 'k' }, predicate: newPredicate('NUMERIC') }],
        }),
      );
    }
    assert.ok(!KEY_TYPES_FOR.keyFilters.includes('ALARM_FIELD'));
    throwsInput(
      () =>
        prepareEntityCountQuery({
          entityFilter: ef,
          keyFilters: [{ key: { type: 'ALARM_FIELD', key: 'k' }, predicate: newPredicate('NUMERIC') }],
        }),
      'query.keyFilters[0].key.type',
    );
    const keys = (types: readonly string[]) => types.map((type) => ({ type, key: 'k' }));
    assert.doesNotThrow(() =>
      prepareEntityDataQuery({
        entityFilter: ef,
        entityFields: keys(KEY_TYPES_FOR.entityFields),
        latestValues: keys(KEY_TYPES_FOR.latestValues),
      }),
    );
    assert.doesNotThrow(() =>
      prepareAlarmDataQuery({ entityFilter: ef, alarmFields: keys(KEY_TYPES_FOR.alarmFields) }),
    );
    for (const t of KEY_TYPES_FOR.entitySort) {
      assert.doesNotThrow(() =>
        prepareEntityDataQuery({ entityFilter: ef, pageLink: { sortOrder: { key: { type: t, key: 'k' } } } }),
      );
    }
    throwsInput(
      () =>
        prepareEntityDataQuery({
          entityFilter: ef,
          pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'k' } } },
        }),
      'query.pageLink.sortOrder.key.type',
    );
    for (const t of KEY_TYPES_FOR.alarmSort) {
      assert.doesNotThrow(() =>
        prepareAlarmDataQuery({ entityFilter: ef, pageLink: { sortOrder: { key: { type: t, key: 'k' } } } }),
      );
    }
    assert.deepEqual([...KEY_TYPES_FOR.alarmSort], [...ENTITY_KEY_TYPES]);
  });
});
