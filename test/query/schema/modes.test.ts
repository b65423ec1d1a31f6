import assert from 'node:assert/strict';
import { ALARM_SEARCH_STATUSES, ALARM_SEVERITIES } from '../../../src/protocol/types';
import { prepareAlarmCountQuery, prepareAlarmDataQuery } from '../../../src/protocol/validate';
import { newEntityFilter } from '../../../src/query-model/schema/filters';
import { ALARM_FILTER_FIELDS, MODE_SCHEMA, defaultQuery } from '../../../src/query-model/schema/modes';
import { QUERY_MODES, type QueryMode } from '../../../src/query-model/schema/spec';
import { PREPARE, sample } from './support';

describe('query/schema/modes: modes and default queries', () => {
  it('each mode lists its parts in order', () => {
    assert.deepEqual(MODE_SCHEMA.entityData.parts, ['entityFilter', 'keyFilters', 'fields', 'page']);
    assert.deepEqual(MODE_SCHEMA.entityCount.parts, ['entityFilter', 'keyFilters']);
    assert.deepEqual(MODE_SCHEMA.alarmData.parts, ['alarm', 'entityFilter', 'keyFilters', 'fields', 'page']);
    assert.deepEqual(MODE_SCHEMA.alarmCount.parts, ['alarm', 'entityFilter', 'keyFilters']);
    assert.equal(MODE_SCHEMA.alarmData.alarmFilterAt, 'pageLink');
    assert.equal(MODE_SCHEMA.alarmCount.alarmFilterAt, '');
    assert.equal(MODE_SCHEMA.entityData.alarmFilterAt, null);
    assert.deepEqual(
      QUERY_MODES.filter((m) => MODE_SCHEMA[m].entityFilterOptional),
      ['alarmCount'],
    );
    assert.deepEqual(MODE_SCHEMA.alarmData.fieldLists, ['alarmFields', 'entityFields', 'latestValues']);
    assert.deepEqual(MODE_SCHEMA.entityData.fieldLists, ['entityFields', 'latestValues']);
    for (const m of QUERY_MODES) {
      const s = MODE_SCHEMA[m];
      assert.equal(s.mode, m);
      assert.equal(s.parts.includes('fields'), s.fieldLists.length > 0, m);
      assert.equal(s.parts.includes('page'), s.pageFields.length > 0, m);
      assert.equal(s.parts.includes('alarm'), s.alarmFilterAt !== null, m);
      assert.equal(s.parts.includes('alarm'), s.alarmFilterFields.length > 0, m);
    }
  });

  it('the alarm filter and page fields are all read by the validator, in the right place', () => {
    const alarmFields: Record<string, unknown> = {};
    for (const f of ALARM_FILTER_FIELDS) alarmFields[f.name] = sample(f);
    const data = prepareAlarmDataQuery({
      entityFilter: newEntityFilter('entityType'),
      pageLink: { ...alarmFields },
    }) as unknown as { pageLink: Record<string, unknown> };
    for (const f of ALARM_FILTER_FIELDS)
      assert.deepEqual(data.pageLink[f.name], alarmFields[f.name], `pageLink.${f.name}`);
    const count = prepareAlarmCountQuery({ ...alarmFields }) as unknown as Record<string, unknown>;
    for (const f of ALARM_FILTER_FIELDS) assert.deepEqual(count[f.name], alarmFields[f.name], f.name);
    for (const mode of ['entityData', 'alarmData'] as const) {
      const page: Record<string, unknown> = {};
      for (const f of MODE_SCHEMA[mode].pageFields) page[f.name] = f.kind === 'int' ? 3 : sample(f);
      const out = (
        PREPARE[mode]({ entityFilter: newEntityFilter('entityType'), pageLink: page }) as {
          pageLink: Record<string, unknown>;
        }
      ).pageLink;
      for (const f of MODE_SCHEMA[mode].pageFields)
        assert.deepEqual(out[f.name], page[f.name], `${mode} pageLink.${f.name}`);
    }
    assert.deepEqual(ALARM_FILTER_FIELDS.find((f) => f.name === 'statusList')!.options, ALARM_SEARCH_STATUSES);
    assert.deepEqual(ALARM_FILTER_FIELDS.find((f) => f.name === 'severityList')!.options, ALARM_SEVERITIES);
  });

  it("defaultQuery: neutral queries, already in the validator's output form", () => {
    assert.deepEqual(defaultQuery('entityData'), {
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      keyFilters: [],
      entityFields: [
        { type: 'ENTITY_FIELD', key: 'name' },
        { type: 'ENTITY_FIELD', key: 'type' },
        { type: 'ENTITY_FIELD', key: 'label' },
      ],
      latestValues: [],
      pageLink: { page: 0, pageSize: 100, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
    });
    assert.deepEqual(defaultQuery('entityCount'), {
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      keyFilters: [],
    });
    const alarm = defaultQuery('alarmData') as { pageLink: Record<string, unknown>; alarmFields: unknown[] };
    assert.deepEqual(alarm.pageLink, {
      page: 0,
      pageSize: 100,
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
      statusList: ['ACTIVE'],
    });
    assert.equal(alarm.alarmFields.length, 5);
    assert.deepEqual(defaultQuery('alarmCount'), { keyFilters: [], statusList: ['ACTIVE'] });
    for (const m of QUERY_MODES) {
      const q = defaultQuery(m);
      assert.deepEqual(PREPARE[m](q), q, m);
      assert.deepEqual(Object.keys(PREPARE[m](q) as object), Object.keys(q), `${m}: same key order`);
      // Fresh objects each time.
      (q as Record<string, unknown>).extra = 1;
      assert.equal((defaultQuery(m) as Record<string, unknown>).extra, undefined);
    }
    assert.throws(() => defaultQuery('nope' as QueryMode), /unknown query mode/);
  });
});
