import assert from 'node:assert/strict';
import { prepareAlarmDataQuery, prepareEntityCountQuery, prepareEntityDataQuery } from '../../../src/protocol/validate';
import { U1, U2, throwsInput } from '../helpers';

const entityFilter = { type: 'entityType', entityType: 'DEVICE' };
const NAME = { type: 'ENTITY_FIELD', key: 'name' };
const TEMP = { type: 'TIME_SERIES', key: 'temperature' };

describe('query/validate/page-link: page links', () => {
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
      assert.deepEqual(prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 7 } }).pageLink, {
        page: 0,
        pageSize: 7,
      });
    });

    it('checks page and pageSize', () => {
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 0 } }),
        'query.pageLink.pageSize',
        'query.pageLink.pageSize must be a positive integer (got 0)',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: -5 } }),
        'query.pageLink.pageSize',
        '(got -5)',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 2.5 } }),
        'query.pageLink.pageSize',
        '(got 2.5)',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: '10' } }),
        'query.pageLink.pageSize',
        '(got "10")',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 10, page: -1 } }),
        'query.pageLink.page',
        'integer >= 0',
        '(got -1)',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 10, page: 0.5 } }),
        'query.pageLink.page',
        '(got 0.5)',
      );
      throwsInput(
        () => prepareEntityDataQuery({ entityFilter, pageLink: 'page 1' }),
        'query.pageLink',
        'must be an object',
      );
    });

    it('checks textSearch, dynamic and sortOrder', () => {
      const pl = (pageLink: unknown) => prepareEntityDataQuery({ entityFilter, pageLink }).pageLink;
      assert.deepEqual(pl({ pageSize: 1, textSearch: null }), { page: 0, pageSize: 1, textSearch: null });
      assert.deepEqual(pl({ pageSize: 1, textSearch: 'ab', dynamic: true }), {
        page: 0,
        pageSize: 1,
        textSearch: 'ab',
        dynamic: true,
      });
      throwsInput(() => pl({ pageSize: 1, textSearch: 5 }), 'query.pageLink.textSearch', 'must be a string', '(got 5)');
      throwsInput(() => pl({ pageSize: 1, dynamic: 'true' }), 'query.pageLink.dynamic', 'true or false');
      throwsInput(
        () => pl({ pageSize: 1, sortOrder: { direction: 'ASC' } }),
        'query.pageLink.sortOrder.key',
        'must be a key',
        '(missing)',
      );
      throwsInput(
        () => pl({ pageSize: 1, sortOrder: { key: NAME, direction: 'UP' } }),
        'query.pageLink.sortOrder.direction',
        'one of ASC, DESC',
        '(got "UP")',
      );
      throwsInput(
        () => pl({ pageSize: 1, sortOrder: { key: NAME, direction: 'desc' } }),
        'query.pageLink.sortOrder.direction',
        'did you mean "DESC"?',
      );
      throwsInput(
        () => pl({ pageSize: 1, sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' } } }),
        'query.pageLink.sortOrder.key.type',
        'only allowed in an alarm query',
      );
    });

    it('refuses an entity or alarm field sort key the server refuses (Validator.PROPERTY_PATTERN), on every path', () => {
      const sort = (key: unknown, options?: { live?: boolean }) =>
        prepareEntityDataQuery(
          { entityFilter, pageLink: { pageSize: 10, sortOrder: { key, direction: 'ASC' } } },
          'query',
          options,
        ).pageLink.sortOrder;
      const alarmSort = (key: unknown) =>
        prepareAlarmDataQuery({ entityFilter, pageLink: { sortOrder: { key, direction: 'DESC' } } }).pageLink.sortOrder;
      const F = 'query.pageLink.sortOrder.key.key';
      for (const live of [false, true]) {
        throwsInput(
          () => sort({ type: 'ENTITY_FIELD', key: 'created(Time)' }, { live }),
          F,
          'letters, digits, "_" and "-" only',
          'Invalid entity data page link sort property',
          '(got "created(Time)")',
        );
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
      assert.deepEqual(sort({ type: 'TIME_SERIES', key: 'temp (°C)' }), {
        key: { type: 'TIME_SERIES', key: 'temp (°C)' },
        direction: 'ASC',
      });
      assert.deepEqual(alarmSort({ type: 'SERVER_ATTRIBUTE', key: 'zone.name' }), {
        key: { type: 'SERVER_ATTRIBUTE', key: 'zone.name' },
        direction: 'DESC',
      });
      // a count drops the pageLink without reading it, as the server does
      assert.doesNotThrow(() =>
        prepareEntityCountQuery({
          entityFilter,
          pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'a b' } } },
        }),
      );
    });

    it('defaults sortOrder.direction to ASC and keeps DESC', () => {
      assert.deepEqual(
        prepareEntityDataQuery({ entityFilter, pageLink: { pageSize: 10, sortOrder: { key: NAME } } }).pageLink
          .sortOrder,
        { key: NAME, direction: 'ASC' },
      );
      assert.deepEqual(
        prepareEntityDataQuery({
          entityFilter,
          pageLink: { pageSize: 10, sortOrder: { key: NAME, direction: 'DESC' } },
        }).pageLink.sortOrder,
        {
          key: NAME,
          direction: 'DESC',
        },
      );
    });
  });

  describe('alarm data query', () => {
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
        alarmFields: [
          { type: 'ALARM_FIELD', key: 'type', x: 1 },
          { type: 'ALARM_FIELD', key: 'assignee' },
        ],
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
      assert.deepEqual(
        prepareAlarmDataQuery({ entityFilter, pageLink: { pageSize: 1, assigneeId: U2 } }).pageLink.assigneeId,
        { entityType: 'USER', id: U2 },
      );
      assert.deepEqual(
        prepareAlarmDataQuery({ entityFilter, pageLink: { pageSize: 1, assigneeId: { id: U2 } } }).pageLink.assigneeId,
        { entityType: 'USER', id: U2 },
      );
    });

    it('checks the alarm pageLink fields', () => {
      const P = 'query.pageLink';
      const pl = (extra: Record<string, unknown>) => () =>
        prepareAlarmDataQuery({ entityFilter, pageLink: { pageSize: 10, ...extra } });
      throwsInput(
        pl({ statusList: ['ACTIVE', 'OPEN'] }),
        `${P}.statusList[1]`,
        'query.pageLink.statusList[1] must be one of ANY, ACTIVE, CLEARED, ACK, UNACK (got "OPEN")',
      );
      throwsInput(pl({ statusList: ['active'] }), `${P}.statusList[0]`, 'did you mean "ACTIVE"?');
      throwsInput(pl({ statusList: 'ACTIVE' }), `${P}.statusList`, 'must be an array of ANY, ACTIVE', '(got "ACTIVE")');
      throwsInput(
        pl({ severityList: ['HIGH'] }),
        `${P}.severityList[0]`,
        'one of CRITICAL, MAJOR, MINOR, WARNING, INDETERMINATE',
        '(got "HIGH")',
      );
      throwsInput(pl({ severityList: ['Critical'] }), `${P}.severityList[0]`, 'did you mean "CRITICAL"?');
      throwsInput(pl({ typeList: [1] }), `${P}.typeList[0]`, 'must be a string');
      throwsInput(pl({ startTs: -1 }), `${P}.startTs`, 'integer >= 0', '(got -1)');
      throwsInput(pl({ endTs: 1.5 }), `${P}.endTs`, 'integer >= 0');
      throwsInput(pl({ timeWindow: '1h' }), `${P}.timeWindow`, '(got "1h")');
      throwsInput(pl({ searchPropagatedAlarms: 'yes' }), `${P}.searchPropagatedAlarms`, 'true or false');
      throwsInput(pl({ assigneeId: 'me' }), `${P}.assigneeId`, 'must be a UUID');
      throwsInput(
        pl({ assigneeId: { entityType: 'CUSTOMER', id: U1 } }),
        `${P}.assigneeId.entityType`,
        'must be USER',
        '(got "CUSTOMER")',
      );
      throwsInput(
        pl({ sortOrder: { key: { type: 'ALARM_FIELDS', key: 'x' } } }),
        `${P}.sortOrder.key.type`,
        'ENTITY_FIELD, ALARM_FIELD',
        '(got "ALARM_FIELDS")',
      );
      throwsInput(pl({ pageSize: 0 }), `${P}.pageSize`, 'positive integer');
    });
  });
});
