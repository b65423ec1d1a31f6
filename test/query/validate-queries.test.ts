import assert from 'node:assert/strict';
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
  prepareEntityId,
  prepareKeysOptions,
  prepareAlarmStatusOptions,
  jsonText,
} from '../../src/query/validate';
import { TbInputError } from '../../src/errors';
import { U1, U2, throwsInput } from './helpers';

const entityFilter = { type: 'entityType', entityType: 'DEVICE' };
const NAME = { type: 'ENTITY_FIELD', key: 'name' };
const TEMP = { type: 'TIME_SERIES', key: 'temperature' };

describe('query/validate: queries', () => {
  describe('input', () => {
    it('must be a plain object', () => {
      throwsInput(() => prepareEntityDataQuery(undefined), 'query', 'must be an object', '(missing)');
      throwsInput(() => prepareEntityDataQuery(null), 'query', '(got null)');
      throwsInput(() => prepareEntityDataQuery([entityFilter]), 'query', '(got an array)');
      throwsInput(() => prepareEntityDataQuery(42), 'query', '(got 42)');
      throwsInput(() => prepareEntityDataQuery(new Date()), 'query', 'must be an object');
      throwsInput(() => prepareEntityDataQuery('"just a string"'), 'query', '(got "just a string")');
    });

    it('jsonText (the "got …" of error messages) never throws: cycles and BigInts are described, long texts cut', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      assert.equal(jsonText({ a: [1, 'x'] }), '{"a":[1,"x"]}');
      assert.equal(jsonText(cyclic), 'an object');
      assert.equal(jsonText([cyclic]), 'an array');
      assert.equal(jsonText(BigInt(7)), '7');
      assert.equal(jsonText(() => 1), 'a function');
      assert.equal(jsonText('y'.repeat(500)), `"${'y'.repeat(198)}…`);
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
      throwsInput(() => prepareEntityDataQuery('{"entityFilter": ', 'msg.query'), 'msg.query', 'msg.query is not valid JSON: ', parserMessage);
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

    it('throws TbInputError with the TB_INVALID_INPUT code', () => {
      assert.throws(() => prepareEntityCountQuery({}), (e: unknown) => e instanceof TbInputError && e.code === 'TB_INVALID_INPUT' && e.name === 'TbInputError');
    });
  });

  describe('entity data query', () => {
    it('defaults pageLink to {page:0, pageSize:100} and fills the key arrays', () => {
      assert.deepEqual(prepareEntityDataQuery({ entityFilter }), {
        entityFilter,
        keyFilters: [],
        entityFields: [],
        latestValues: [],
        pageLink: { page: 0, pageSize: 100 },
      });
      assert.deepEqual(prepareEntityDataQuery({ entityFilter, pageLink: null }).pageLink, { page: 0, pageSize: 100 });
      assert.deepEqual(prepareEntityDataQuery({ entityFilter, pageLink: {} }).pageLink, { page: 0, pageSize: 100 });
      assert.deepEqual(prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 7 } }).pageLink, { page: 0, pageSize: 7 });
    });

    it('checks page and pageSize', () => {
      throwsInput(() => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 0 } }), 'query.pageLink.pageSize', 'query.pageLink.pageSize must be a positive integer (got 0)');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: -5 } }), 'query.pageLink.pageSize', '(got -5)');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 2.5 } }), 'query.pageLink.pageSize', '(got 2.5)');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: '10' } }), 'query.pageLink.pageSize', '(got "10")');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 10, page: -1 } }), 'query.pageLink.page', 'integer >= 0', '(got -1)');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 10, page: 0.5 } }), 'query.pageLink.page', '(got 0.5)');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, pageLink: 'page 1' }), 'query.pageLink', 'must be an object');
    });

    it('checks textSearch, dynamic and sortOrder', () => {
      const pl = (pageLink: unknown) => prepareEntityDataQuery({ entityFilter, pageLink }).pageLink;
      assert.deepEqual(pl({ pageSize: 1, textSearch: null }), { page: 0, pageSize: 1, textSearch: null });
      assert.deepEqual(pl({ pageSize: 1, textSearch: 'ab', dynamic: true }), { page: 0, pageSize: 1, textSearch: 'ab', dynamic: true });
      throwsInput(() => pl({ pageSize: 1, textSearch: 5 }), 'query.pageLink.textSearch', 'must be a string', '(got 5)');
      throwsInput(() => pl({ pageSize: 1, dynamic: 'true' }), 'query.pageLink.dynamic', 'true or false');
      throwsInput(() => pl({ pageSize: 1, sortOrder: { direction: 'ASC' } }), 'query.pageLink.sortOrder.key', 'must be a key', '(missing)');
      throwsInput(() => pl({ pageSize: 1, sortOrder: { key: NAME, direction: 'UP' } }), 'query.pageLink.sortOrder.direction', 'one of ASC, DESC', '(got "UP")');
      throwsInput(() => pl({ pageSize: 1, sortOrder: { key: NAME, direction: 'desc' } }), 'query.pageLink.sortOrder.direction', 'did you mean "DESC"?');
      throwsInput(
        () => pl({ pageSize: 1, sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' } } }),
        'query.pageLink.sortOrder.key.type',
        'only allowed in an alarm query',
      );
    });

    it('refuses an entity or alarm field sort key the server refuses (Validator.PROPERTY_PATTERN), on every path', () => {
      const sort = (key: unknown, options?: { live?: boolean }) =>
        prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 10, sortOrder: { key, direction: 'ASC' } } }, 'query', options).pageLink.sortOrder;
      const alarmSort = (key: unknown) => prepareAlarmDataQuery({ entityFilter, pageLink: { sortOrder: { key, direction: 'DESC' } } }).pageLink.sortOrder;
      const F = 'query.pageLink.sortOrder.key.key';
      for (const live of [false, true]) {
        throwsInput(() => sort({ type: 'ENTITY_FIELD', key: 'created(Time)' }, { live }), F, 'letters, digits, "_" and "-" only', 'Invalid entity data page link sort property', '(got "created(Time)")');
      }
      throwsInput(() => sort({ type: 'ENTITY_FIELD', key: 'name desc' }), F, '(got "name desc")');
      throwsInput(() => sort({ type: 'ENTITY_FIELD', key: 'name;drop' }), F);
      throwsInput(() => sort({ type: 'ENTITY_FIELD', key: 'a.b' }), F);
      throwsInput(() => sort({ type: 'ENTITY_FIELD', key: 'name\n' }), F); // matched whole, as Matcher#matches does
      throwsInput(() => alarmSort({ type: 'ALARM_FIELD', key: 'created Time' }), F, 'ALARM_FIELD sort key');
      throwsInput(() => alarmSort({ type: 'ENTITY_FIELD', key: 'x+y' }), F, 'ENTITY_FIELD sort key');
      // Unicode letters, digits, "_" and "-" pass; attribute and time-series keys may be named anything
      for (const key of ['createdTime', 'ownerName', 'my_field-2', 'Température', '名前']) {
        assert.deepEqual(sort({ type: 'ENTITY_FIELD', key }), { key: { type: 'ENTITY_FIELD', key }, direction: 'ASC' });
      }
      assert.deepEqual(sort({ type: 'TIME_SERIES', key: 'temp (°C)' }), { key: { type: 'TIME_SERIES', key: 'temp (°C)' }, direction: 'ASC' });
      assert.deepEqual(alarmSort({ type: 'SERVER_ATTRIBUTE', key: 'zone.name' }), { key: { type: 'SERVER_ATTRIBUTE', key: 'zone.name' }, direction: 'DESC' });
      // a count drops the pageLink without reading it, as the server does
      assert.doesNotThrow(() => prepareEntityCountQuery({ entityFilter, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'a b' } } } }));
    });

    it('defaults sortOrder.direction to ASC and keeps DESC', () => {
      assert.deepEqual(prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 10, sortOrder: { key: NAME } } }).pageLink.sortOrder, { key: NAME, direction: 'ASC' });
      assert.deepEqual(prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 10, sortOrder: { key: NAME, direction: 'DESC' } } }).pageLink.sortOrder, {
        key: NAME,
        direction: 'DESC',
      });
    });

    it('checks entityFields and latestValues', () => {
      throwsInput(() => prepareEntityDataQuery({ entityFilter, entityFields: NAME }), 'query.entityFields', 'must be an array of keys');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, entityFields: [NAME, 'label'] }), 'query.entityFields[1]', 'must be a key', '(got "label")');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, latestValues: [TEMP, { type: 'TIMESERIES', key: 'x' }] }), 'query.latestValues[1].type', 'TIME_SERIES', '(got "TIMESERIES")');
      throwsInput(() => prepareEntityDataQuery({ entityFilter, latestValues: [{ type: 'ALARM_FIELD', key: 'x' }] }), 'query.latestValues[0].type', 'ALARM_FIELD');
    });

    it('strips unknown fields at every level (deep equality of the wire copy)', () => {
      const input = {
        entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'], deviceNameFilter: 'Th', resolveMultiple: true },
        keyFilters: [
          {
            key: { type: 'TIME_SERIES', key: 'temperature', id: 3 },
            valueType: 'NUMERIC',
            value: 20,
            predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 20, dynamicValue: null, x: 1 }, y: 2 },
          },
        ],
        entityFields: [{ ...NAME, label: 'Name' }, { type: 'ENTITY_FIELD', key: 'label' }],
        latestValues: [{ ...TEMP, settings: {} }, { type: 'SERVER_ATTRIBUTE', key: 'model' }],
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
        keyFilters: [{ key: TEMP, valueType: 'NUMERIC', predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 20 } } }],
        entityFields: [NAME, { type: 'ENTITY_FIELD', key: 'label' }],
        latestValues: [TEMP, { type: 'SERVER_ATTRIBUTE', key: 'model' }],
        pageLink: { page: 0, pageSize: 2, textSearch: null, sortOrder: { key: TEMP, direction: 'DESC' } },
      });
    });
  });

  describe('entity count query', () => {
    it('accepts an entity data query and drops its data parts without validating them', () => {
      assert.deepEqual(
        prepareEntityCountQuery({ entityFilter, pageLink: { pageSize: 0 }, entityFields: 'bad', latestValues: [TEMP], keyFiltersOperation: 'AND' }),
        { entityFilter, keyFilters: [], keyFiltersOperation: 'AND' },
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

    it('keeps the alarm pageLink fields and cleans them', () => {
      const q = prepareAlarmDataQuery({
        entityFilter,
        pageLink: {
          page: 1,
          pageSize: 10,
          textSearch: 'high',
          searchPropagatedAlarms: true,
          statusList: ['ACTIVE', 'UNACK'],
          severityList: ['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'],
          typeList: ['High Temperature'],
          startTs: 1,
          endTs: 2,
          timeWindow: 86400000,
          assigneeId: { entityType: 'USER', id: U1, name: 'x' },
          sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' } },
          foo: 'bar',
        },
        alarmFields: [{ type: 'ALARM_FIELD', key: 'type', x: 1 }, { type: 'ALARM_FIELD', key: 'assignee' }],
        entityFields: [NAME],
        latestValues: [TEMP],
      });
      assert.deepEqual(q, {
        entityFilter,
        keyFilters: [],
        entityFields: [NAME],
        latestValues: [TEMP],
        alarmFields: [
          { type: 'ALARM_FIELD', key: 'type' },
          { type: 'ALARM_FIELD', key: 'assignee' },
        ],
        pageLink: {
          page: 1,
          pageSize: 10,
          textSearch: 'high',
          searchPropagatedAlarms: true,
          statusList: ['ACTIVE', 'UNACK'],
          severityList: ['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'],
          typeList: ['High Temperature'],
          startTs: 1,
          endTs: 2,
          timeWindow: 86400000,
          assigneeId: { entityType: 'USER', id: U1 },
          sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'ASC' },
        },
      });
    });

    it('normalises a bare assignee UUID', () => {
      assert.deepEqual(prepareAlarmDataQuery({ entityFilter, pageLink: { pageSize: 1, assigneeId: U2 } }).pageLink.assigneeId, { entityType: 'USER', id: U2 });
      assert.deepEqual(prepareAlarmDataQuery({ entityFilter, pageLink: { pageSize: 1, assigneeId: { id: U2 } } }).pageLink.assigneeId, { entityType: 'USER', id: U2 });
    });

    it('checks the alarm pageLink fields', () => {
      const P = 'query.pageLink';
      const pl = (extra: Record<string, unknown>) => () => prepareAlarmDataQuery({ entityFilter, pageLink: { pageSize: 10, ...extra } });
      throwsInput(pl({ statusList: ['ACTIVE', 'OPEN'] }), `${P}.statusList[1]`, 'query.pageLink.statusList[1] must be one of ANY, ACTIVE, CLEARED, ACK, UNACK (got "OPEN")');
      throwsInput(pl({ statusList: ['active'] }), `${P}.statusList[0]`, 'did you mean "ACTIVE"?');
      throwsInput(pl({ statusList: 'ACTIVE' }), `${P}.statusList`, 'must be an array of ANY, ACTIVE', '(got "ACTIVE")');
      throwsInput(pl({ severityList: ['HIGH'] }), `${P}.severityList[0]`, 'one of CRITICAL, MAJOR, MINOR, WARNING, INDETERMINATE', '(got "HIGH")');
      throwsInput(pl({ severityList: ['Critical'] }), `${P}.severityList[0]`, 'did you mean "CRITICAL"?');
      throwsInput(pl({ typeList: [1] }), `${P}.typeList[0]`, 'must be a string');
      throwsInput(pl({ startTs: -1 }), `${P}.startTs`, 'integer >= 0', '(got -1)');
      throwsInput(pl({ endTs: 1.5 }), `${P}.endTs`, 'integer >= 0');
      throwsInput(pl({ timeWindow: '1h' }), `${P}.timeWindow`, '(got "1h")');
      throwsInput(pl({ searchPropagatedAlarms: 'yes' }), `${P}.searchPropagatedAlarms`, 'true or false');
      throwsInput(pl({ assigneeId: 'me' }), `${P}.assigneeId`, 'must be a UUID');
      throwsInput(pl({ assigneeId: { entityType: 'CUSTOMER', id: U1 } }), `${P}.assigneeId.entityType`, 'must be USER', '(got "CUSTOMER")');
      throwsInput(pl({ sortOrder: { key: { type: 'ALARM_FIELDS', key: 'x' } } }), `${P}.sortOrder.key.type`, 'ENTITY_FIELD, ALARM_FIELD', '(got "ALARM_FIELDS")');
      throwsInput(pl({ pageSize: 0 }), `${P}.pageSize`, 'positive integer');
    });

    it('allows ALARM_FIELD in alarmFields and sortOrder only', () => {
      throwsInput(() => prepareAlarmDataQuery({ entityFilter, entityFields: [{ type: 'ALARM_FIELD', key: 'type' }] }), 'query.entityFields[0].type', 'only allowed in an alarm query');
      throwsInput(
        () => prepareAlarmDataQuery({ entityFilter, keyFilters: [{ key: { type: 'ALARM_FIELD', key: 'type' }, predicate: { type: 'STRING', operation: 'EQUAL', value: 'x' } }] }),
        'query.keyFilters[0].key.type',
        'only allowed',
      );
      throwsInput(() => prepareAlarmDataQuery({ entityFilter, alarmFields: [{ type: 'ALARM', key: 'type' }] }), 'query.alarmFields[0].type', 'ALARM_FIELD', '(got "ALARM")');
      assert.deepEqual(prepareAlarmDataQuery({ entityFilter, alarmFields: [{ type: 'ENTITY_FIELD', key: 'name' }] }).alarmFields, [{ type: 'ENTITY_FIELD', key: 'name' }]);
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
      assert.deepEqual(prepareAlarmCountQuery({ entityFilter, keyFiltersOperation: 'AND', junk: 1 }), { entityFilter, keyFilters: [], keyFiltersOperation: 'AND' });
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
      throwsInput(() => prepareAlarmCountQuery({ statusList: ['ANY', 'NONE'] }), 'query.statusList[1]', 'ANY, ACTIVE, CLEARED, ACK, UNACK', '(got "NONE")');
      throwsInput(() => prepareAlarmCountQuery({ timeWindow: -1 }), 'query.timeWindow', 'integer >= 0');
      throwsInput(() => prepareAlarmCountQuery({ entityFilter: { type: 'nope' } }), 'query.entityFilter.type', '(got "nope")');
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
      assert.deepEqual(prepareAlarmCountQuery({ statusList: ['CLEARED'], pageLink: { statusList: ['ACTIVE'], typeList: ['a'] } }), {
        keyFilters: [],
        statusList: ['CLEARED'],
        typeList: ['a'],
      });
      throwsInput(() => prepareAlarmCountQuery({ pageLink: { severityList: ['LOW'] } }), 'query.pageLink.severityList[0]', '(got "LOW")');
      throwsInput(() => prepareAlarmCountQuery({ pageLink: 'x' }), 'query.pageLink', 'must be an object');
    });
  });

  describe('prepareEntityId', () => {
    it('validates a plain entity id', () => {
      assert.deepEqual(prepareEntityId({ entityType: 'DEVICE', id: U1, extra: 1 }, 'originator'), { entityType: 'DEVICE', id: U1 });
      throwsInput(() => prepareEntityId({ entityType: 'CURRENT_USER' }, 'originator'), 'originator.entityType', '(got "CURRENT_USER")');
      throwsInput(() => prepareEntityId({ entityType: 'DEVICE', id: 'x' }, 'originator'), 'originator.id', 'UUID');
    });
  });

  describe('prepareKeysOptions', () => {
    it('defaults both includes to true and no scopes', () => {
      assert.deepEqual(prepareKeysOptions({}, 'keys'), { includeTimeseries: true, includeAttributes: true, scopes: [] });
      assert.deepEqual(prepareKeysOptions(undefined), { includeTimeseries: true, includeAttributes: true, scopes: [] });
    });

    it('accepts booleans, "true"/"false" and a scope array or comma string', () => {
      assert.deepEqual(prepareKeysOptions({ timeseries: false, attributes: true, scopes: ['SHARED_SCOPE', 'SERVER_SCOPE', 'SHARED_SCOPE'] }, 'keys'), {
        includeTimeseries: false,
        includeAttributes: true,
        scopes: ['SHARED_SCOPE', 'SERVER_SCOPE'],
      });
      assert.deepEqual(prepareKeysOptions({ timeseries: 'true', attributes: 'false', scopes: ' CLIENT_SCOPE , SERVER_SCOPE,,' }, 'keys'), {
        includeTimeseries: true,
        includeAttributes: false,
        scopes: ['CLIENT_SCOPE', 'SERVER_SCOPE'],
      });
      assert.deepEqual(prepareKeysOptions({ scopes: '' }, 'keys').scopes, []);
    });

    it('needs at least one include and valid scopes', () => {
      throwsInput(() => prepareKeysOptions({ timeseries: false, attributes: false }, 'keys'), 'keys', 'at least one of timeseries or attributes');
      throwsInput(() => prepareKeysOptions({ timeseries: 'no' }, 'keys'), 'keys.timeseries', 'true or false', '(got "no")');
      throwsInput(() => prepareKeysOptions({ scopes: 'SERVER_SCOPE,PUBLIC' }, 'keys'), 'keys.scopes', 'one of SERVER_SCOPE, SHARED_SCOPE, CLIENT_SCOPE', '(got "PUBLIC")');
      throwsInput(() => prepareKeysOptions({ scopes: ['server_scope'] }, 'keys'), 'keys.scopes[0]', 'did you mean "SERVER_SCOPE"?');
      throwsInput(() => prepareKeysOptions({ scopes: 5 }, 'keys'), 'keys.scopes', 'array', '(got 5)');
    });
  });

  describe('prepareAlarmStatusOptions', () => {
    it('gives empty lists (= any) by default', () => {
      assert.deepEqual(prepareAlarmStatusOptions({}), { typeList: [], severityList: [] });
      assert.deepEqual(prepareAlarmStatusOptions({ typeList: '', severityList: null }), { typeList: [], severityList: [] });
      assert.deepEqual(prepareAlarmStatusOptions(undefined), { typeList: [], severityList: [] });
    });

    it('accepts comma strings and arrays, trims and deduplicates', () => {
      assert.deepEqual(prepareAlarmStatusOptions({ typeList: ' High Temperature , Low Battery,,High Temperature', severityList: 'CRITICAL, MAJOR' }), {
        typeList: ['High Temperature', 'Low Battery'],
        severityList: ['CRITICAL', 'MAJOR'],
      });
      assert.deepEqual(prepareAlarmStatusOptions({ typeList: ['a', ' b ', ''], severityList: ['MINOR', 'MINOR'] }), {
        typeList: ['a', 'b'],
        severityList: ['MINOR'],
      });
    });

    it('checks the severities and the types', () => {
      throwsInput(() => prepareAlarmStatusOptions({ severityList: 'CRITICAL,HIGH' }), 'severityList', 'one of CRITICAL, MAJOR, MINOR, WARNING', '(got "HIGH")');
      throwsInput(() => prepareAlarmStatusOptions({ severityList: ['critical'] }, 'config'), 'config.severityList[0]', 'did you mean "CRITICAL"?');
      throwsInput(() => prepareAlarmStatusOptions({ typeList: [1] }), 'typeList[0]', 'must be a string', '(got 1)');
      throwsInput(() => prepareAlarmStatusOptions({ typeList: 5 }), 'typeList', 'comma-separated string', '(got 5)');
    });
  });
});
