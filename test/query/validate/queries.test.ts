import assert from 'node:assert/strict';
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
} from '../../../src/protocol/validate';
import { U1, U2, throwsInput } from '../helpers';

const entityFilter = { type: 'entityType', entityType: 'DEVICE' };
const NAME = { type: 'ENTITY_FIELD', key: 'name' };
const TEMP = { type: 'TIME_SERIES', key: 'temperature' };

describe('query/validate/queries: queries', () => {
  describe('input', () => {
    it('must be a plain object', () => {
      throwsInput(() => prepareEntityDataQuery(undefined), 'query', 'must be an object', '(missing)');
      throwsInput(() => prepareEntityDataQuery(null), 'query', '(got null)');
      throwsInput(() => prepareEntityDataQuery([entityFilter]), 'query', '(got an array)');
      throwsInput(() => prepareEntityDataQuery(42), 'query', '(got 42)');
      throwsInput(() => prepareEntityDataQuery(new Date()), 'query', 'must be an object');
      throwsInput(() => prepareEntityDataQuery('"just a string"'), 'query', '(got "just a string")');
    });

    it('accepts a JSON string', () => {
      assert.deepEqual(prepareEntityDataQuery(JSON.stringify({ entityFilter, pageLink: { pageSize: 5 } })), {
        entityFilter,
        keyFilters: [],
        entityFields: [],
        latestValues: [],
        pageLink: { page: 0, pageSize: 5 },
      });
    });

    it('names the field and the parser message on bad JSON', () => {
      let parserMessage = '';
      try {
        JSON.parse('{"entityFilter": ');
      } catch (e) {
        parserMessage = (e as Error).message;
      }
      throwsInput(
        () => prepareEntityDataQuery('{"entityFilter": ', 'msg.query'),
        'msg.query',
        'msg.query is not valid JSON: ',
        parserMessage,
      );
      throwsInput(() => prepareAlarmCountQuery('{x}'), 'query', 'is not valid JSON');
    });

    it('does not modify the input', () => {
      const input = {
        entityFilter: { type: 'deviceType', deviceType: 'x' },
        pageLink: { pageSize: 10, sortOrder: { key: NAME } },
        keyFilters: [{ key: TEMP, predicate: { type: 'NUMERIC', operation: 'GREATER', value: 20 } }],
      };
      const copy = JSON.parse(JSON.stringify(input));
      const out = prepareEntityDataQuery(input);
      assert.deepEqual(input, copy);
      assert.notEqual(out.pageLink, input.pageLink);
      assert.notEqual(out.entityFilter, input.entityFilter);
    });
  });

  describe('entity data query', () => {
    it('strips unknown fields at every level (deep equality of the wire copy)', () => {
      const input = {
        entityFilter: {
          type: 'deviceType',
          deviceTypes: ['thermostat'],
          deviceNameFilter: 'Th',
          resolveMultiple: true,
        },
        keyFilters: [
          {
            key: { type: 'TIME_SERIES', key: 'temperature', id: 3 },
            valueType: 'NUMERIC',
            value: 20,
            predicate: {
              type: 'NUMERIC',
              operation: 'GREATER',
              value: { defaultValue: 20, dynamicValue: null, x: 1 },
              y: 2,
            },
          },
        ],
        entityFields: [
          { ...NAME, label: 'Name' },
          { type: 'ENTITY_FIELD', key: 'label' },
        ],
        latestValues: [
          { ...TEMP, settings: {} },
          { type: 'SERVER_ATTRIBUTE', key: 'model' },
        ],
        pageLink: {
          page: 0,
          pageSize: 2,
          textSearch: null,
          sortOrder: { key: { ...TEMP, extra: true }, direction: 'DESC', extra: true },
          statusList: ['ACTIVE'],
          junk: 1,
        },
        alarmFields: [],
        somethingElse: 'x',
      };
      assert.deepEqual(prepareEntityDataQuery(input), {
        entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'], deviceNameFilter: 'Th' },
        keyFilters: [
          {
            key: TEMP,
            valueType: 'NUMERIC',
            predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 20 } },
          },
        ],
        entityFields: [NAME, { type: 'ENTITY_FIELD', key: 'label' }],
        latestValues: [TEMP, { type: 'SERVER_ATTRIBUTE', key: 'model' }],
        pageLink: { page: 0, pageSize: 2, textSearch: null, sortOrder: { key: TEMP, direction: 'DESC' } },
      });
    });
  });

  describe('entity count query', () => {
    it('accepts an entity data query and drops its data parts without validating them', () => {
      assert.deepEqual(
        prepareEntityCountQuery({
          entityFilter,
          pageLink: { pageSize: 0 },
          entityFields: 'bad',
          latestValues: [TEMP],
          keyFiltersOperation: 'AND',
        }),
        {
          entityFilter,
          keyFilters: [],
          keyFiltersOperation: 'AND',
        },
      );
    });

    it('requires an entity filter', () => {
      throwsInput(() => prepareEntityCountQuery({ keyFilters: [] }), 'query.entityFilter', '(missing)');
    });
  });

  describe('alarm data query', () => {
    it('always sets alarmFields, entityFields, latestValues, keyFilters and the default pageLink', () => {
      assert.deepEqual(prepareAlarmDataQuery({ entityFilter }), {
        entityFilter,
        keyFilters: [],
        entityFields: [],
        latestValues: [],
        alarmFields: [],
        pageLink: { page: 0, pageSize: 100 },
      });
    });

    it('requires an entity filter', () => {
      throwsInput(() => prepareAlarmDataQuery({ pageLink: { pageSize: 1 } }), 'query.entityFilter', '(missing)');
    });
  });

  describe('alarm count query', () => {
    it('has an optional entity filter', () => {
      assert.deepEqual(prepareAlarmCountQuery({}), { keyFilters: [] });
      assert.deepEqual(prepareAlarmCountQuery({ statusList: ['ACTIVE'], severityList: ['CRITICAL'] }), {
        keyFilters: [],
        statusList: ['ACTIVE'],
        severityList: ['CRITICAL'],
      });
      assert.deepEqual(prepareAlarmCountQuery({ entityFilter, keyFiltersOperation: 'AND', junk: 1 }), {
        entityFilter,
        keyFilters: [],
        keyFiltersOperation: 'AND',
      });
    });

    it('keeps and checks the flat filter fields', () => {
      assert.deepEqual(
        prepareAlarmCountQuery({
          startTs: 5,
          endTs: 10,
          timeWindow: 1000,
          typeList: ['t'],
          statusList: ['CLEARED', 'ACK'],
          severityList: ['MINOR'],
          searchPropagatedAlarms: false,
          assigneeId: U1,
        }),
        {
          keyFilters: [],
          startTs: 5,
          endTs: 10,
          timeWindow: 1000,
          typeList: ['t'],
          statusList: ['CLEARED', 'ACK'],
          severityList: ['MINOR'],
          searchPropagatedAlarms: false,
          assigneeId: { entityType: 'USER', id: U1 },
        },
      );
      throwsInput(
        () => prepareAlarmCountQuery({ statusList: ['ANY', 'NONE'] }),
        'query.statusList[1]',
        'ANY, ACTIVE, CLEARED, ACK, UNACK',
        '(got "NONE")',
      );
      throwsInput(() => prepareAlarmCountQuery({ timeWindow: -1 }), 'query.timeWindow', 'integer >= 0');
      throwsInput(
        () => prepareAlarmCountQuery({ entityFilter: { type: 'nope' } }),
        'query.entityFilter.type',
        '(got "nope")',
      );
    });

    it('lifts the filter fields of an alarm data query pageLink', () => {
      assert.deepEqual(
        prepareAlarmCountQuery({
          entityFilter,
          pageLink: {
            page: 3,
            pageSize: 10,
            textSearch: 'x',
            sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
            statusList: ['ACTIVE'],
            severityList: ['CRITICAL', 'MAJOR'],
            typeList: ['High Temperature'],
            timeWindow: 86400000,
            startTs: 1,
            endTs: 2,
            searchPropagatedAlarms: true,
            assigneeId: { entityType: 'USER', id: U2 },
          },
          alarmFields: [],
          entityFields: [NAME],
          latestValues: [TEMP],
        }),
        {
          entityFilter,
          keyFilters: [],
          statusList: ['ACTIVE'],
          severityList: ['CRITICAL', 'MAJOR'],
          typeList: ['High Temperature'],
          timeWindow: 86400000,
          startTs: 1,
          endTs: 2,
          searchPropagatedAlarms: true,
          assigneeId: { entityType: 'USER', id: U2 },
        },
      );
    });

    it('lets top-level fields win over lifted ones, and checks lifted fields under pageLink', () => {
      assert.deepEqual(
        prepareAlarmCountQuery({ statusList: ['CLEARED'], pageLink: { statusList: ['ACTIVE'], typeList: ['a'] } }),
        {
          keyFilters: [],
          statusList: ['CLEARED'],
          typeList: ['a'],
        },
      );
      throwsInput(
        () => prepareAlarmCountQuery({ pageLink: { severityList: ['LOW'] } }),
        'query.pageLink.severityList[0]',
        '(got "LOW")',
      );
      throwsInput(() => prepareAlarmCountQuery({ pageLink: 'x' }), 'query.pageLink', 'must be an object');
    });
  });
});
