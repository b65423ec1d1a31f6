import assert from 'node:assert/strict';
import { defaultQuery, QUERY_MODES, type QueryMode } from '../../src/query-model/schema';
import { entitiesLabel, summarize, type SummaryOptions } from '../../src/query-model/summary';
import { U1, U2, U3 } from './helpers';

const DEV = { type: 'entityType', entityType: 'DEVICE' };
const NAMES: SummaryOptions = {
  nameOf: ({ id }) => (({ [U1]: 'Campus North', [U2]: 'Campus South' }) as Record<string, string>)[id],
};
const ts = (key: string) => ({ type: 'TIME_SERIES', key });
const num = (operation: string, value: unknown) => ({ type: 'NUMERIC', operation, value });
const str = (operation: string, value: unknown, ignoreCase?: boolean) => ({
  type: 'STRING',
  operation,
  value,
  ...(ignoreCase ? { ignoreCase } : {}),
});
const kf = (key: string, predicate: unknown, valueType?: string) => ({
  key: ts(key),
  predicate,
  ...(valueType ? { valueType } : {}),
});
const count = (entityFilter: unknown, extra: Record<string, unknown> = {}) =>
  summarize('entityCount', { entityFilter, ...extra });
const alarms = (pageLink: Record<string, unknown>, extra: Record<string, unknown> = {}, options?: SummaryOptions) =>
  summarize('alarmData', { entityFilter: DEV, alarmFields: [], pageLink, ...extra }, options);

describe('query/summary', () => {
  describe('default queries', () => {
    it('says what each new query asks for', () => {
      assert.equal(summarize('entityData', defaultQuery('entityData')), 'all devices, sorted by name, first 100');
      assert.equal(summarize('entityCount', defaultQuery('entityCount')), 'count of all devices');
      assert.equal(
        summarize('alarmData', defaultQuery('alarmData')),
        'active alarms of any severity on all devices, any time, newest first, first 100',
      );
      assert.equal(
        summarize('alarmCount', defaultQuery('alarmCount')),
        'count of active alarms of any severity on any entity (whole tenant or customer), any time',
      );
    });
  });

  describe('entity filters', () => {
    it('entityType and entityName: name filters are case-insensitive prefixes unless % is used (§5.2)', () => {
      assert.equal(count({ type: 'entityType', entityType: 'ASSET' }), 'count of all assets');
      assert.equal(
        count({ type: 'entityName', entityType: 'ASSET', entityNameFilter: 'Building' }),
        "count of assets named starting with 'Building'",
      );
      assert.equal(
        count({ type: 'entityName', entityType: 'ASSET', entityNameFilter: '%North' }),
        "count of assets named ending with 'North'",
      );
      assert.equal(
        count({ type: 'entityName', entityType: 'ASSET', entityNameFilter: '%North%' }),
        "count of assets named containing 'North'",
      );
      assert.equal(
        count({ type: 'entityName', entityType: 'ASSET', entityNameFilter: 'B%' }),
        "count of assets named starting with 'B'",
      );
      assert.equal(
        count({ type: 'entityName', entityType: 'ASSET', entityNameFilter: 'B%1' }),
        "count of assets named like 'B%1%'",
      );
      assert.equal(
        count({ type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'dev_1' }),
        "count of devices named like 'dev_1%'",
      );
      assert.equal(count({ type: 'entityName', entityType: 'ASSET', entityNameFilter: '' }), 'count of all assets');
      assert.equal(count({ type: 'entityName', entityType: 'ASSET', entityNameFilter: '%' }), 'count of all assets');
      assert.equal(
        count({ type: 'entityName', entityType: 'USER', entityNameFilter: 'ann' }),
        "count of users with email starting with 'ann'",
      );
      assert.equal(
        count({ type: 'entityName', entityType: 'CUSTOMER', entityNameFilter: 'Acme' }),
        "count of customers with title starting with 'Acme'",
      );
    });

    it('type filters: profiles or types, with the deprecated singular name and a name filter', () => {
      assert.equal(
        count({ type: 'deviceType', deviceTypes: ['thermostat'] }),
        'count of devices of profile thermostat',
      );
      assert.equal(
        count({ type: 'deviceType', deviceTypes: ['a', 'b'], deviceNameFilter: 'T' }),
        "count of devices of profile a or b named starting with 'T'",
      );
      assert.equal(
        count({ type: 'deviceType', deviceTypes: [], deviceType: 'legacy' }),
        'count of devices of profile legacy',
      );
      assert.equal(
        count({ type: 'assetType', assetTypes: ['a', 'b', 'c', 'd', 'e'] }),
        'count of assets of profile a, b, c and 2 more',
      );
      assert.equal(
        count({ type: 'entityViewType', entityViewTypes: ['v', 'w', 'x'] }),
        'count of entity views of type v, w or x',
      );
      assert.equal(count({ type: 'edgeType', edgeTypes: ['gateway'] }), 'count of edges of type gateway');
    });

    it('singleEntity and entityList, with names when the picker knows them', () => {
      assert.equal(
        count({ type: 'singleEntity', singleEntity: { entityType: 'ASSET', id: U1 } }, {}),
        `count of asset ${U1.slice(0, 8)}…`,
      );
      assert.equal(
        summarize(
          'entityCount',
          { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'ASSET', id: U1 } } },
          NAMES,
        ),
        'count of asset Campus North',
      );
      assert.equal(
        count({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER' } }),
        'count of the current user',
      );
      assert.equal(
        count({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER_OWNER' } }),
        "count of the current user's owner",
      );
      assert.equal(
        count({ type: 'entityList', entityType: 'DEVICE', entityList: [U1, U2, U3] }),
        'count of 3 chosen devices',
      );
      assert.equal(count({ type: 'entityList', entityType: 'DEVICE', entityList: [U1] }), 'count of 1 chosen device');
      assert.equal(
        summarize(
          'entityCount',
          { entityFilter: { type: 'entityList', entityType: 'ASSET', entityList: [U1, U2] } },
          NAMES,
        ),
        'count of assets Campus North or Campus South',
      );
    });

    it('says when no match is possible', () => {
      assert.equal(
        count({ type: 'entityList', entityType: 'DEVICE', entityList: [] }),
        'count of devices from an empty list (no match possible)',
      );
      assert.equal(
        count({
          type: 'relationsQuery',
          multiRoot: true,
          multiRootEntitiesType: 'ASSET',
          multiRootEntityIds: [],
          direction: 'FROM',
        }),
        'count of entities that no asset relates to (any depth) (no root entities: no match possible)',
      );
    });

    it('apiUsageState', () => {
      assert.equal(count({ type: 'apiUsageState' }), 'count of the API usage state of the tenant');
      assert.equal(
        summarize('entityCount', { entityFilter: { type: 'apiUsageState', customerId: U2 } }, NAMES),
        'count of the API usage state of Campus South',
      );
    });

    it('relations: direction, levels, relation types and target types (§5.7)', () => {
      const root = { entityType: 'ASSET', id: U1 };
      const rel = (f: Record<string, unknown>) =>
        summarize(
          'entityCount',
          { entityFilter: { type: 'relationsQuery', rootEntity: root, direction: 'FROM', ...f } },
          NAMES,
        );
      assert.equal(rel({ maxLevel: 1 }), 'count of entities that Campus North relates to (1 level)');
      assert.equal(
        rel({ direction: 'TO', maxLevel: 3 }),
        'count of entities that relate to Campus North (up to 3 levels)',
      );
      assert.equal(rel({ maxLevel: 0 }), 'count of entities that Campus North relates to (any depth)');
      assert.equal(
        rel({
          maxLevel: 2,
          fetchLastLevelOnly: true,
          filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
        }),
        'count of devices that Campus North relates to (Contains, up to 2 levels, last level only)',
      );
      assert.equal(
        rel({
          filters: [
            { relationType: 'Contains', entityTypes: ['DEVICE'] },
            { relationType: 'Manages', entityTypes: ['ASSET'] },
          ],
        }),
        'count of devices or assets that Campus North relates to (Contains or Manages, any depth)',
      );
      assert.equal(
        rel({ filters: [{ relationType: 'Contains', negate: true }] }),
        'count of entities that Campus North relates to (not Contains, any depth)',
      );
      assert.equal(
        rel({ negate: true, filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }] }),
        'count of entities that Campus North relates to (any depth) except devices by Contains',
      );
      assert.equal(
        summarize(
          'entityCount',
          {
            entityFilter: {
              type: 'relationsQuery',
              multiRoot: true,
              multiRootEntitiesType: 'ASSET',
              multiRootEntityIds: [U1, U2],
              direction: 'FROM',
              maxLevel: 1,
            },
          },
          NAMES,
        ),
        'count of entities that Campus North or Campus South relates to (1 level)',
      );
      assert.equal(
        count({
          type: 'relationsQuery',
          multiRoot: true,
          multiRootEntitiesType: 'ASSET',
          multiRootEntityIds: [U1, U2],
          direction: 'FROM',
          maxLevel: 1,
        }),
        'count of entities that any of 2 assets relates to (1 level)',
      );
    });

    it('search queries: fixed target type, optional profiles and relation type', () => {
      const root = { entityType: 'ASSET', id: U1 };
      assert.equal(
        summarize(
          'entityCount',
          {
            entityFilter: {
              type: 'deviceSearchQuery',
              rootEntity: root,
              direction: 'FROM',
              maxLevel: 2,
              relationType: 'Contains',
              deviceTypes: ['thermostat'],
            },
          },
          NAMES,
        ),
        'count of devices of profile thermostat that Campus North relates to (Contains, up to 2 levels)',
      );
      assert.equal(
        summarize('entityCount', {
          entityFilter: { type: 'edgeSearchQuery', rootEntity: { entityType: 'CURRENT_CUSTOMER' }, direction: 'TO' },
        }),
        'count of edges that relate to the current customer (any depth)',
      );
    });

    it('search queries: a singular type is not read (the server has no such field there)', () => {
      assert.equal(
        summarize('entityCount', {
          entityFilter: {
            type: 'deviceSearchQuery',
            rootEntity: { entityType: 'CURRENT_USER' },
            direction: 'FROM',
            maxLevel: 1,
            deviceType: 'thermostat',
          },
        }),
        'count of devices that the current user relates to (1 level) (deviceType is ignored here: use deviceTypes)',
      );
    });

    it('a type list holding only null matches nothing', () => {
      assert.equal(
        count({ type: 'deviceType', deviceTypes: [null] }),
        'count of devices of no profile (a null type matches nothing: no match possible)',
      );
      assert.equal(count({ type: 'deviceType', deviceTypes: ['a', null] }), 'count of devices of profile a');
      assert.equal(
        summarize('entityCount', {
          entityFilter: {
            type: 'assetSearchQuery',
            rootEntity: { entityType: 'CURRENT_USER' },
            direction: 'FROM',
            maxLevel: 1,
            assetTypes: [null],
          },
        }),
        'count of assets of no profile that the current user relates to (1 level) (a null type matches nothing: no ' +
          'match possible)',
      );
    });
  });

  describe('key filters (§5.5)', () => {
    const where = (...keyFilters: unknown[]) => summarize('entityCount', { entityFilter: DEV, keyFilters });

    it('numeric, string and boolean conditions, ANDed by default', () => {
      assert.equal(
        where(kf('temperature', num('GREATER', { defaultValue: 25 }))),
        'count of all devices where temperature > 25',
      );
      assert.equal(
        where(kf('t', num('LESS_OR_EQUAL', 3)), kf('h', num('NOT_EQUAL', 0))),
        'count of all devices where t <= 3 and h != 0',
      );
      assert.equal(where(kf('model', str('STARTS_WITH', 'TX'))), "count of all devices where model starts with 'TX'");
      assert.equal(
        where(kf('model', str('NOT_CONTAINS', { defaultValue: 'x' }, true))),
        "count of all devices where model does not contain 'x' (any case)",
      );
      assert.equal(
        where(kf('on', { type: 'BOOLEAN', operation: 'EQUAL', value: true })),
        'count of all devices where on is true',
      );
      assert.equal(
        where(kf('on', { type: 'BOOLEAN', operation: 'NOT_EQUAL', value: { defaultValue: true } })),
        'count of all devices where on is not true',
      );
    });

    it('OR between key filters (keyFiltersOperation)', () => {
      assert.equal(
        summarize('entityCount', {
          entityFilter: DEV,
          keyFiltersOperation: 'OR',
          keyFilters: [kf('a', num('GREATER', 1)), kf('b', num('LESS', 2))],
        }),
        'count of all devices where a > 1 or b < 2',
      );
    });

    it('IN lists are split as the server splits them, with ignoreCase lower-casing first', () => {
      assert.equal(
        where(kf('mode', str('IN', "'auto', 'eco'"))),
        "count of all devices where mode is one of 'auto' or 'eco'",
      );
      assert.equal(
        where(kf('mode', str('NOT_IN', 'A,B , C', true))),
        "count of all devices where mode is none of 'a', 'b' and 'c' (any case)",
      );
      assert.equal(where(kf('mode', str('IN', '"a", b'))), `count of all devices where mode is one of '"a"' or 'b'`);
    });

    it('an empty string value switches the condition off', () => {
      assert.equal(
        where(kf('model', str('EQUAL', ''))),
        'count of all devices where model (no condition: empty value)',
      );
    });

    it('an empty COMPLEX group is no condition (the server builds none from it)', () => {
      assert.equal(
        where(kf('t', { type: 'COMPLEX', operation: 'OR', predicates: [] })),
        'count of all devices where t (no condition: empty group)',
      );
      assert.equal(
        where(
          kf('t', {
            type: 'COMPLEX',
            operation: 'AND',
            predicates: [num('GREATER', 5), { type: 'COMPLEX', operation: 'OR', predicates: [] }],
          }),
        ),
        'count of all devices where t > 5 and t (no condition: empty group)',
      );
    });

    it('COMPLEX groups, nested, with their own AND/OR', () => {
      assert.equal(
        where(kf('t', { type: 'COMPLEX', operation: 'OR', predicates: [num('LESS', 5), num('GREATER', 30)] })),
        'count of all devices where t < 5 or t > 30',
      );
      assert.equal(
        where(
          kf('t', {
            type: 'COMPLEX',
            operation: 'AND',
            predicates: [
              num('GREATER', 5),
              { type: 'COMPLEX', operation: 'OR', predicates: [num('LESS', 10), num('EQUAL', 20)] },
            ],
          }),
          kf('on', { type: 'BOOLEAN', operation: 'EQUAL', value: true }),
        ),
        'count of all devices where (t > 5 and (t < 10 or t = 20)) and on is true',
      );
    });

    it('user values win, dynamic values name their source and fallback, DATE_TIME shows a date', () => {
      assert.equal(
        where(kf('t', num('GREATER', { defaultValue: 1, userValue: 2 }))),
        'count of all devices where t > 2',
      );
      assert.equal(
        where(
          kf(
            't',
            num('GREATER', {
              defaultValue: 30,
              dynamicValue: { sourceType: 'CURRENT_CUSTOMER', sourceAttribute: 'maxTemp' },
            }),
          ),
        ),
        "count of all devices where t > the customer's maxTemp (else 30)",
      );
      assert.equal(
        where(kf('t', num('GREATER', { dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'limit' } }))),
        "count of all devices where t > the user's limit",
      );
      assert.equal(
        where(kf('since', num('GREATER_OR_EQUAL', 1767225600000), 'DATE_TIME')),
        'count of all devices where since >= 2026-01-01 00:00 UTC',
      );
      assert.equal(
        where(kf('t', num('GREATER', { defaultValue: null, userValue: 2 }))),
        'count of all devices where t > 2',
      );
      assert.equal(
        where(kf('s', { type: 'STRING', operation: 'EQUAL', value: { defaultValue: null, userValue: 'abc' } })),
        "count of all devices where s is 'abc'",
      );
    });

    describe('dynamic values as each path reads them (§5.6)', () => {
      const dyn = (extra: Record<string, unknown> = {}) =>
        kf(
          't',
          num('GREATER', {
            defaultValue: 30,
            dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'limit', ...extra },
          }),
        );
      const text = (mode: QueryMode, live: boolean | undefined, f: unknown) =>
        summarize(
          mode,
          { entityFilter: DEV, keyFilters: [f], ...(mode === 'alarmData' ? { pageLink: { pageSize: 10 } } : {}) },
          live === undefined ? {} : { live },
        );

      it('REST find and live subscriptions read the attribute; a resolvedValue is the fallback before the default', () => {
        for (const live of [undefined, false, true]) {
          assert.equal(
            text('entityCount', live === false ? undefined : live, dyn()),
            "count of all devices where t > the tenant's limit (else 30)",
          );
          assert.match(
            text('entityData', live, dyn()),
            /^all devices where t > the tenant's limit \(else 30\), first 100$/,
          );
        }
        assert.equal(
          text('entityCount', true, dyn({ resolvedValue: 25 })),
          "count of all devices where t > the tenant's limit (else 25)",
        );
      });

      it('REST find uses a given resolvedValue as is', () => {
        assert.equal(
          text('entityData', false, dyn({ resolvedValue: 25 })),
          'all devices where t > 25 (given resolvedValue), first 100',
        );
      });

      it('REST counts and alarm queries read no dynamic value: the default (or resolvedValue) applies', () => {
        assert.equal(
          text('entityCount', false, dyn()),
          'count of all devices where t > 30 (REST counts and alarm queries do not read dynamic values)',
        );
        assert.equal(
          text('entityCount', false, dyn({ resolvedValue: 25 })),
          'count of all devices where t > 25 (REST counts and alarm queries do not read dynamic values)',
        );
        assert.match(
          text('alarmData', false, dyn()),
          /where t > 30, .*\(REST counts and alarm queries do not read dynamic values\)$/,
        );
      });

      it('CURRENT_DEVICE is never read: the value shown is the one used', () => {
        const device = (extra: Record<string, unknown>) =>
          kf(
            't',
            num('GREATER', {
              defaultValue: 30,
              dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'limit' },
              ...extra,
            }),
          );
        assert.equal(
          text('entityCount', true, device({})),
          'count of all devices where t > 30 (the device attribute is never read here)',
        );
        assert.equal(text('entityCount', true, device({ userValue: 26 })), 'count of all devices where t > 26');
        assert.equal(
          text(
            'entityData',
            false,
            kf(
              't',
              num('GREATER', {
                dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'limit', resolvedValue: 27 },
              }),
            ),
          ),
          'all devices where t > 27, first 100 (the device attribute is never read here)',
        );
      });
    });

    it('long lists are cut: "and N more conditions"', () => {
      const many = ['a', 'b', 'c', 'd', 'e'].map((k) => kf(k, num('GREATER', 1)));
      assert.equal(where(...many), 'count of all devices where a > 1 and b > 1 and c > 1 and 2 more conditions');
    });

    it('long values are cut', () => {
      const long = 'x'.repeat(100);
      assert.equal(where(kf('m', str('EQUAL', long))), `count of all devices where m is '${'x'.repeat(31)}…'`);
    });
  });

  describe('entity data: sort, page, text search', () => {
    const data = (pageLink: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      summarize('entityData', {
        entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
        pageLink,
        ...extra,
      });

    it("the brief's example", () => {
      assert.equal(
        summarize('entityData', {
          entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
          keyFilters: [kf('temperature', num('GREATER', 25))],
          pageLink: {
            page: 0,
            pageSize: 100,
            sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' },
          },
        }),
        'devices of profile thermostat where temperature > 25, sorted by name, first 100',
      );
    });

    it('sort direction (missing = ASC, as the validator sends it), createdTime as newest/oldest first', () => {
      assert.equal(
        data({ sortOrder: { key: { type: 'TIME_SERIES', key: 'temperature' }, direction: 'DESC' } }),
        'devices of profile thermostat, sorted by temperature descending, first 100',
      );
      assert.equal(
        data({ sortOrder: { key: { type: 'ENTITY_FIELD', key: 'label' } } }),
        'devices of profile thermostat, sorted by label, first 100',
      );
      assert.equal(
        data({ sortOrder: { key: { type: 'ENTITY_FIELD', key: 'createdTime' }, direction: 'DESC' } }),
        'devices of profile thermostat, newest first, first 100',
      );
      assert.equal(
        data({ sortOrder: { key: { type: 'ENTITY_FIELD', key: 'createdTime' }, direction: 'ASC' } }),
        'devices of profile thermostat, oldest first, first 100',
      );
    });

    it('pages (missing pageLink = first 100, as the validator defaults)', () => {
      assert.equal(summarize('entityData', { entityFilter: DEV }), 'all devices, first 100');
      assert.equal(data({ page: 2, pageSize: 50 }), 'devices of profile thermostat, page 3 (50 per page)');
      assert.equal(data({ pageSize: 10 }), 'devices of profile thermostat, first 10');
    });

    it('text search is a contains over the listed fields, ignored when there are none (§5.3)', () => {
      assert.equal(
        data({ textSearch: 'north' }),
        "devices of profile thermostat, first 100, text search 'north' ignored (no fields to search)",
      );
      assert.equal(
        data({ textSearch: 'north' }, { entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }] }),
        "devices of profile thermostat, first 100, with 'north' in the listed fields",
      );
      assert.equal(data({ textSearch: '' }), 'devices of profile thermostat, first 100');
    });
  });

  describe('alarms (§5.9)', () => {
    it("the brief's example", () => {
      assert.equal(
        summarize(
          'alarmData',
          {
            entityFilter: {
              type: 'deviceSearchQuery',
              rootEntity: { entityType: 'ASSET', id: U1 },
              direction: 'FROM',
              maxLevel: 2,
            },
            alarmFields: [],
            pageLink: {
              typeList: ['High Temperature'],
              severityList: ['CRITICAL', 'MAJOR'],
              statusList: ['ACTIVE', 'UNACK'],
              timeWindow: 86_400_000,
            },
          },
          NAMES,
        ),
        'alarms of type High Temperature, CRITICAL or MAJOR, active and unacknowledged, on devices that Campus North ' +
          'relates to (up to 2 levels), last 24 hours, first 100',
      );
    });

    it('statusList: ACTIVE/CLEARED and ACK/UNACK are two conditions, ANDed; ANY or both of a pair = no condition', () => {
      const s = (statusList: unknown) => alarms({ statusList });
      assert.equal(s(['ACTIVE']), 'active alarms of any severity on all devices, any time, first 100');
      assert.equal(
        s(['CLEARED', 'ACK']),
        'cleared and acknowledged alarms of any severity on all devices, any time, first 100',
      );
      assert.equal(s(['UNACK']), 'unacknowledged alarms of any severity on all devices, any time, first 100');
      assert.equal(s(['ACTIVE', 'CLEARED']), 'alarms of any status and severity on all devices, any time, first 100');
      assert.equal(
        s(['ACTIVE', 'CLEARED', 'UNACK']),
        'unacknowledged alarms of any severity on all devices, any time, first 100',
      );
      assert.equal(s(['ANY', 'ACTIVE']), 'alarms of any status and severity on all devices, any time, first 100');
      assert.equal(s([]), 'alarms of any status and severity on all devices, any time, first 100');
      assert.equal(s(null), 'alarms of any status and severity on all devices, any time, first 100');
    });

    it('severities and types: empty lists mean any', () => {
      assert.equal(
        alarms({ severityList: ['CRITICAL'], statusList: ['ACTIVE'] }),
        'active CRITICAL alarms on all devices, any time, first 100',
      );
      assert.equal(
        alarms({ severityList: ['MINOR', 'WARNING'] }),
        'MINOR or WARNING alarms of any status on all devices, any time, first 100',
      );
      assert.equal(
        alarms({ typeList: ['Fire'], severityList: [] }),
        'alarms of type Fire, any severity, any status, on all devices, any time, first 100',
      );
      assert.equal(alarms({ typeList: [] }), 'alarms of any status and severity on all devices, any time, first 100');
    });

    it('assignee', () => {
      assert.equal(
        alarms({ statusList: ['ACTIVE'], assigneeId: U2 }, {}, NAMES),
        'active alarms of any severity assigned to Campus South on all devices, any time, first 100',
      );
      assert.equal(
        alarms({ typeList: ['Fire'], assigneeId: { entityType: 'USER', id: U3 } }),
        `alarms of type Fire, any severity, any status, assigned to user ${U3.slice(0, 8)}…, on all devices, any ` +
          'time, first 100',
      );
    });

    it('time: a window wins; from startTs for find, ending now for counts', () => {
      const day = 86_400_000;
      assert.equal(
        alarms({ timeWindow: 3_600_000 }),
        'alarms of any status and severity on all devices, last hour, first 100',
      );
      assert.equal(
        alarms({ timeWindow: 7 * day }),
        'alarms of any status and severity on all devices, last 7 days, first 100',
      );
      assert.equal(
        alarms({ timeWindow: 90 * 60_000 }),
        'alarms of any status and severity on all devices, last 90 minutes, first 100',
      );
      assert.equal(
        alarms({ timeWindow: day, startTs: 1767225600000, endTs: 1 }),
        'alarms of any status and severity on all devices, from 2026-01-01 00:00 UTC for 24 hours, first 100',
      );
      assert.equal(
        alarms({ startTs: 1767225600000, endTs: 1767312000000 }),
        'alarms of any status and severity on all devices, from 2026-01-01 00:00 UTC to 2026-01-02 00:00 UTC, first ' +
          '100',
      );
      assert.equal(
        alarms({ startTs: 1767225600000 }),
        'alarms of any status and severity on all devices, since 2026-01-01 00:00 UTC, first 100',
      );
      assert.equal(
        alarms({ endTs: 1767225645000 }),
        'alarms of any status and severity on all devices, until 2026-01-01 00:00:45 UTC, first 100',
      );
      assert.equal(
        alarms({ startTs: 1767312000000, endTs: 1767225600000 }),
        'alarms of any status and severity on all devices, from 2026-01-02 00:00 UTC to 2026-01-01 00:00 UTC, first ' +
          '100 (start after end: no match possible)',
      );
      assert.equal(
        summarize('alarmCount', { timeWindow: day, startTs: 1767225600000 }),
        'count of alarms of any status and severity on any entity (whole tenant or customer), last 24 hours (startTs ' +
          'ignored by counts)',
      );
    });

    it('sorting: alarm fields sort alarms (severity alphabetically), other keys sort the entities', () => {
      const sort = (key: unknown, direction?: string) =>
        alarms({ statusList: ['ACTIVE'], sortOrder: { key, direction } });
      assert.equal(
        sort({ type: 'ALARM_FIELD', key: 'severity' }, 'DESC'),
        'active alarms of any severity on all devices, any time, sorted by severity descending (alphabetically), ' +
          'first 100',
      );
      assert.equal(
        sort({ type: 'ALARM_FIELD', key: 'createdTime' }, 'ASC'),
        'active alarms of any severity on all devices, any time, oldest first, first 100',
      );
      assert.equal(
        sort({ type: 'ENTITY_FIELD', key: 'name' }),
        'active alarms of any severity on all devices, any time, sorted by entity name, first 100',
      );
      assert.equal(
        sort({ type: 'ENTITY_FIELD', key: 'createdTime' }, 'DESC'),
        'active alarms of any severity on all devices, any time, entities newest first, first 100',
      );
    });

    it('propagated alarms, text search over alarm fields, key filters on the entities', () => {
      assert.equal(
        alarms({ statusList: ['ACTIVE'], searchPropagatedAlarms: true }, { keyFilters: [kf('t', num('GREATER', 1))] }),
        'active alarms of any severity on all devices where t > 1 (incl. propagated alarms), any time, first 100',
      );
      assert.equal(
        alarms({ textSearch: 'fire' }, { alarmFields: [{ type: 'ALARM_FIELD', key: 'status' }] }),
        "alarms of any status and severity on all devices, any time, first 100, text search 'fire' ignored (no alarm " +
          'fields to search)',
      );
      assert.equal(
        alarms({ textSearch: 'fire' }, { alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }] }),
        "alarms of any status and severity on all devices, any time, first 100, with 'fire' in the listed fields",
      );
    });

    it('live: no hint without any time (sent with a window back to the epoch), hints when the times stop new alarms (§9.12)', () => {
      // tb-subscribe sends timeWindow = now when the query has no time of its own: every alarm, then the new ones
      assert.equal(
        alarms({ statusList: ['ACTIVE'] }, {}, { live: true }),
        'active alarms of any severity on all devices, any time, first 100',
      );
      assert.equal(
        alarms({ statusList: ['ACTIVE'], timeWindow: 60_000 }, {}, { live: true }),
        'active alarms of any severity on all devices, last minute, first 100',
      );
      // startTs/endTs without a window are sent as written: timeWindow 0 lets no alarm event through
      assert.equal(
        alarms({ statusList: ['ACTIVE'], startTs: Date.UTC(2026, 0, 1) }, {}, { live: true }),
        'active alarms of any severity on all devices, since 2026-01-01 00:00 UTC, first 100 (live: with ' +
          'startTs/endTs but no timeWindow, new alarms never appear)',
      );
      assert.equal(
        alarms({ endTs: Date.UTC(2026, 0, 1) }, {}, { live: true }),
        'alarms of any status and severity on all devices, until 2026-01-01 00:00 UTC, first 100 (live: with ' +
          'startTs/endTs but no timeWindow, new alarms never appear)',
      );
      // a fixed range: the re-fetches read that range only
      assert.equal(
        alarms({ startTs: Date.UTC(2026, 0, 1), timeWindow: 86_400_000 }, {}, { live: true }),
        'alarms of any status and severity on all devices, from 2026-01-01 00:00 UTC for 24 hours, first 100 (live: ' +
          'no new alarms once that range has ended)',
      );
      // not live: none of these hints
      assert.equal(
        alarms({ startTs: Date.UTC(2026, 0, 1) }),
        'alarms of any status and severity on all devices, since 2026-01-01 00:00 UTC, first 100',
      );
    });

    it('alarm counts: no entity filter = every alarm of the tenant/customer; key filters need one', () => {
      assert.equal(
        summarize('alarmCount', { statusList: ['ACTIVE', 'UNACK'], severityList: ['CRITICAL'] }),
        'count of active and unacknowledged CRITICAL alarms on any entity (whole tenant or customer), any time',
      );
      assert.equal(
        summarize('alarmCount', { keyFilters: [kf('t', num('GREATER', 1))] }),
        'count of alarms of any status and severity on any entity (whole tenant or customer), any time (key filters ' +
          'ignored without an entity filter)',
      );
      assert.equal(
        summarize('alarmCount', {
          entityFilter: { type: 'deviceType', deviceTypes: ['pump'] },
          searchPropagatedAlarms: true,
          timeWindow: 3_600_000,
        }),
        'count of alarms of any status and severity on devices of profile pump (incl. propagated alarms), last hour ' +
          '(an alarm may count more than once)',
      );
    });

    it("alarm counts read a data query's pageLink fields where the top level is silent (as prepareAlarmCountQuery)", () => {
      assert.equal(
        summarize('alarmCount', {
          entityFilter: DEV,
          pageLink: { statusList: ['CLEARED'], severityList: ['MAJOR'] },
          severityList: ['MINOR'],
        }),
        'count of cleared MINOR alarms on all devices, any time',
      );
    });
  });

  describe('invalid and partial input never throws', () => {
    it('says "incomplete query"', () => {
      assert.equal(summarize('entityData', null), 'incomplete query: not a query object');
      assert.equal(summarize('entityData', [1]), 'incomplete query: not a query object');
      assert.equal(summarize('entityData', '{'), 'incomplete query: not valid JSON');
      assert.equal(summarize('entityData', '  '), 'incomplete query: empty');
      assert.equal(summarize('entityData', {}), 'incomplete query: no entity filter');
      assert.equal(summarize('nope' as QueryMode, {}), 'incomplete query: unknown query mode');
      assert.equal(
        summarize('entityCount', { entityFilter: { type: 'deviceType' } }),
        'incomplete query: count of devices of profile ?',
      );
      assert.equal(
        summarize('entityCount', { entityFilter: { type: 'stateEntity' } }),
        "incomplete query: count of entities of the unknown filter type 'stateEntity'",
      );
      assert.equal(
        summarize('entityCount', { entityFilter: { entityType: 'DEVICE' } }),
        'incomplete query: count of entities of a filter without a type',
      );
      assert.equal(
        summarize('entityCount', { entityFilter: { type: 'entityType' } }),
        'incomplete query: count of all entities of type ?',
      );
      assert.equal(
        summarize('entityCount', { entityFilter: { type: 'relationsQuery', maxLevel: 1 } }),
        'incomplete query: count of entities that ? relates to (1 level)',
      );
      assert.equal(
        summarize('entityCount', {
          entityFilter: DEV,
          keyFilters: [{ key: { type: 'TIME_SERIES' }, predicate: { type: 'NUMERIC', operation: 'GREATER' } }],
        }),
        'incomplete query: count of all devices where ? > ?',
      );
      assert.equal(
        summarize('entityCount', { entityFilter: DEV, keyFilters: [kf('t', { type: 'COMPLEX', operation: 'AND' })] }),
        'incomplete query: count of all devices where t (group ?)',
      );
      assert.equal(
        summarize('entityData', JSON.stringify(defaultQuery('entityData'))),
        'all devices, sorted by name, first 100',
      );
    });

    it('survives hostile values', () => {
      const cyclic: Record<string, unknown> = { type: 'COMPLEX', operation: 'AND' };
      cyclic.predicates = [cyclic];
      const trap = new Proxy(
        {},
        {
          get: () => {
            throw new Error('boom');
          },
        },
      );
      const inputs: unknown[] = [
        undefined,
        0,
        true,
        'x',
        { entityFilter: 5 },
        { entityFilter: [] },
        { entityFilter: DEV, keyFilters: 'x' },
        { entityFilter: DEV, keyFilters: [null, 1, 'x', { key: 5, predicate: [] }] },
        { entityFilter: DEV, pageLink: 7 },
        { entityFilter: DEV, keyFilters: [kf('t', cyclic)] },
        { entityFilter: trap },
        trap,
        {
          entityFilter: DEV,
          pageLink: {
            statusList: 'ACTIVE',
            severityList: [1, null],
            typeList: {},
            timeWindow: 'x',
            startTs: -5,
            sortOrder: { key: null },
          },
        },
      ];
      for (const m of QUERY_MODES) {
        for (const input of inputs) {
          const s = summarize(m, input);
          assert.equal(typeof s, 'string');
          assert.ok(s.length > 0 && s.length <= 220, s);
        }
      }
    });

    it('stays short for big queries', () => {
      const q = {
        entityFilter: {
          type: 'deviceType',
          deviceTypes: Array.from({ length: 40 }, (_, i) => `profile-${i}`),
          deviceNameFilter: 'x'.repeat(300),
        },
        keyFilters: Array.from({ length: 30 }, (_, i) =>
          kf(`key${i}`, str('IN', Array.from({ length: 30 }, (_, j) => `v${j}`).join(','))),
        ),
        pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' } } },
      };
      const s = summarize('entityData', q);
      assert.ok(s.length <= 220, `${s.length}: ${s}`);
      assert.ok(s.startsWith('devices of profile profile-0, profile-1, profile-2 and 37 more named starting with'), s);
    });
  });

  describe('entitiesLabel: a node named after the entities its query finds', () => {
    it('the entity filter in words, short; the JSON text too', () => {
      assert.equal(entitiesLabel({ entityFilter: DEV, keyFilters: [kf('t', num('GREATER', 25))] }), 'all devices');
      assert.equal(
        entitiesLabel(JSON.stringify({ entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } })),
        'devices of profile thermostat',
      );
      assert.equal(
        entitiesLabel({ entityFilter: { type: 'entityName', entityType: 'ASSET', entityNameFilter: 'Building' } }),
        "assets named starting with 'Building'",
      );
      const long = entitiesLabel({
        entityFilter: { type: 'deviceType', deviceTypes: ['thermostat', 'meter', 'gateway', 'sensor'] },
      });
      assert.ok(long!.length <= 40 && long!.endsWith('…'), long);
    });

    it('none for a query it cannot tell: no filter, not JSON, incomplete, or a placeholder', () => {
      assert.equal(entitiesLabel({}), undefined);
      assert.equal(entitiesLabel('{'), undefined);
      assert.equal(entitiesLabel({ entityFilter: { type: 'deviceType', deviceTypes: [] } }), undefined);
      assert.equal(
        entitiesLabel({
          entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: '{{msg.payload}}' },
        }),
        undefined,
      );
    });
  });
});
