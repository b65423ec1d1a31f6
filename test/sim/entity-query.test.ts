import assert from 'node:assert/strict';
import {
  ALL_DEVICES,
  THERMOSTATS,
  attr,
  boolPred,
  field,
  findQuery,
  keyFilter,
  names,
  numPred,
  strPred,
  ts,
  type Ctx,
} from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';

const kf = keyFilter;
const temp = ts('temperature');
const model = attr('model');

describe('simulator: entity data query', function () {
  const c = useSimSetup();

  const find = async (q: Record<string, unknown>, client = (): Ctx['tenant'] => c.tenant) =>
    client().ok('/api/entitiesQuery/find', q);
  const count = async (q: Record<string, unknown>): Promise<number> => {
    const n = (await c.tenant.ok('/api/entitiesQuery/count', q)) as number;
    return n;
  };

  describe('entity filters', () => {
    const assetId = (name: string): string => c.sim.data.mustFindByName('ASSET', name).id;
    const deviceId = (name: string): string => c.sim.data.mustFindByName('DEVICE', name).id;
    const cases: { name: string; filter: () => unknown; expect: number | string[] }[] = [
      { name: 'entityType DEVICE', filter: () => ALL_DEVICES, expect: 28 },
      { name: 'entityType ASSET', filter: () => ({ type: 'entityType', entityType: 'ASSET' }), expect: 10 },
      {
        name: 'entityType TENANT (only itself)',
        filter: () => ({ type: 'entityType', entityType: 'TENANT' }),
        expect: ['Tenant'],
      },
      {
        name: 'entityType CUSTOMER',
        filter: () => ({ type: 'entityType', entityType: 'CUSTOMER' }),
        expect: ['Customer A', 'Customer B', 'Customer C'],
      },
      {
        name: 'entityName: case-insensitive prefix',
        filter: () => ({ type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'thermo a' }),
        expect: ['Thermo A-101', 'Thermo A-102', 'Thermo A-103', 'Thermo A-201', 'Thermo A-202', 'Thermo A-203'],
      },
      {
        name: 'entityName: %pattern (contains)',
        filter: () => ({ type: 'entityName', entityType: 'DEVICE', entityNameFilter: '%-1%' }),
        expect: 13,
      },
      {
        name: 'entityName: ends-with pattern',
        filter: () => ({ type: 'entityName', entityType: 'DEVICE', entityNameFilter: '%lab' }),
        expect: ['Thermo Lab'],
      },
      {
        name: 'entityName: _ is a wildcard',
        filter: () => ({ type: 'entityName', entityType: 'DEVICE', entityNameFilter: '_hermo A-10_' }),
        expect: ['Thermo A-101', 'Thermo A-102', 'Thermo A-103'],
      },
      {
        name: 'entityName: empty filter = all',
        filter: () => ({ type: 'entityName', entityType: 'EDGE', entityNameFilter: '' }),
        expect: ['Edge North', 'Edge South'],
      },
      {
        name: 'deviceType plural',
        filter: () => ({ type: 'deviceType', deviceTypes: ['meter', 'default'] }),
        expect: 8,
      },
      {
        name: 'deviceType singular (deprecated)',
        filter: () => ({ type: 'deviceType', deviceType: 'meter' }),
        expect: 6,
      },
      {
        name: 'deviceType + name filter',
        filter: () => ({ type: 'deviceType', deviceTypes: ['meter'], deviceNameFilter: 'METER b' }),
        expect: ['Meter B-100', 'Meter B-200'],
      },
      {
        name: 'deviceType is case-sensitive',
        filter: () => ({ type: 'deviceType', deviceTypes: ['Meter'] }),
        expect: 0,
      },
      { name: 'deviceType without types', filter: () => ({ type: 'deviceType', deviceTypes: [] }), expect: 0 },
      {
        name: 'assetType',
        filter: () => ({ type: 'assetType', assetTypes: ['building'] }),
        expect: ['Building Alpha', 'Building Beta', 'Building Gamma'],
      },
      {
        name: 'assetType singular + name',
        filter: () => ({ type: 'assetType', assetType: 'floor', assetNameFilter: 'gamma' }),
        expect: ['Gamma Floor 1', 'Gamma Floor 2'],
      },
      { name: 'edgeType', filter: () => ({ type: 'edgeType', edgeTypes: ['gateway'] }), expect: ['Edge South'] },
      {
        name: 'entityViewType',
        filter: () => ({ type: 'entityViewType', entityViewTypes: ['roomView'] }),
        expect: ['View A-101', 'View B-101'],
      },
      {
        name: 'entityViewType singular',
        filter: () => ({ type: 'entityViewType', entityViewType: 'meterView', entityViewNameFilter: 'Meter' }),
        expect: ['Meter View G'],
      },
      {
        name: 'singleEntity',
        filter: () => ({ type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: deviceId('Thermo Lab') } }),
        expect: ['Thermo Lab'],
      },
      {
        name: 'singleEntity wrong type',
        filter: () => ({ type: 'singleEntity', singleEntity: { entityType: 'ASSET', id: deviceId('Thermo Lab') } }),
        expect: 0,
      },
      {
        name: 'singleEntity CURRENT_USER',
        filter: () => ({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER' } }),
        expect: ['tenant@thingsboard.org'],
      },
      {
        name: 'singleEntity CURRENT_TENANT',
        filter: () => ({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_TENANT' } }),
        expect: ['Tenant'],
      },
      {
        name: 'singleEntity CURRENT_USER_OWNER (tenant admin)',
        filter: () => ({ type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER_OWNER' } }),
        expect: ['Tenant'],
      },
      {
        name: 'entityList',
        filter: () => ({
          type: 'entityList',
          entityType: 'DEVICE',
          entityList: [deviceId('Meter A-100'), deviceId('Gateway 1'), assetId('Campus North')],
        }),
        expect: ['Gateway 1', 'Meter A-100'],
      },
      { name: 'apiUsageState of the tenant', filter: () => ({ type: 'apiUsageState' }), expect: ['Tenant'] },
      {
        name: 'apiUsageState of a customer',
        filter: () => ({
          type: 'apiUsageState',
          customerId: { entityType: 'CUSTOMER', id: c.sim.data.mustFindByName('CUSTOMER', 'Customer B').id },
        }),
        expect: ['Customer B'],
      },
      {
        name: 'relationsQuery level 1 (any relation type)',
        filter: () => ({
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Building Alpha') },
          direction: 'FROM',
          maxLevel: 1,
        }),
        expect: ['Alpha Floor 1', 'Alpha Floor 2', 'Meter A-100'],
      },
      {
        name: 'relationsQuery Contains DEVICE, maxLevel 0 = 50',
        filter: () => ({
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Campus North') },
          direction: 'FROM',
          maxLevel: 0,
          filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
        }),
        expect: 16,
      },
      {
        name: 'relationsQuery: filters test only the last hop',
        filter: () => ({
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Building Gamma') },
          direction: 'FROM',
          maxLevel: 5,
          filters: [{ relationType: 'Manages', entityTypes: [] }],
        }),
        expect: ['Thermo Lab'],
      },
      {
        name: 'relationsQuery direction TO',
        filter: () => ({
          type: 'relationsQuery',
          rootEntity: { entityType: 'DEVICE', id: deviceId('Thermo A-101') },
          direction: 'TO',
          maxLevel: 10,
        }),
        expect: ['Alpha Floor 1', 'Building Alpha', 'Campus North'],
      },
      {
        name: 'relationsQuery fetchLastLevelOnly keeps leaves',
        filter: () => ({
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Campus North') },
          direction: 'FROM',
          maxLevel: 2,
          fetchLastLevelOnly: true,
        }),
        expect: ['Alpha Floor 1', 'Alpha Floor 2', 'Beta Floor 1', 'Beta Floor 2', 'Meter A-100'],
      },
      {
        name: 'relationsQuery negate',
        filter: () => ({
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Building Alpha') },
          direction: 'FROM',
          maxLevel: 1,
          negate: true,
          filters: [{ relationType: 'Contains', entityTypes: [] }],
        }),
        expect: ['Meter A-100'],
      },
      {
        name: 'relationsQuery filter-level negate',
        filter: () => ({
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Building Alpha') },
          direction: 'FROM',
          maxLevel: 1,
          filters: [{ relationType: 'Contains', negate: true }],
        }),
        expect: ['Meter A-100'],
      },
      {
        name: 'relationsQuery multiRoot',
        filter: () => ({
          type: 'relationsQuery',
          multiRoot: true,
          multiRootEntitiesType: 'ASSET',
          multiRootEntityIds: [assetId('Alpha Floor 1'), assetId('Beta Floor 1')],
          direction: 'FROM',
          maxLevel: 1,
        }),
        expect: 8,
      },
      {
        name: 'deviceSearchQuery',
        filter: () => ({
          type: 'deviceSearchQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Campus North') },
          direction: 'FROM',
          maxLevel: 5,
          relationType: 'Contains',
          deviceTypes: ['meter'],
        }),
        expect: ['Meter A-100', 'Meter A-200', 'Meter B-100', 'Meter B-200'],
      },
      {
        name: 'assetSearchQuery',
        filter: () => ({
          type: 'assetSearchQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Campus North') },
          direction: 'FROM',
          maxLevel: 5,
          relationType: 'Contains',
          assetTypes: ['floor'],
        }),
        expect: 4,
      },
      {
        name: 'entityViewSearchQuery (none related)',
        filter: () => ({
          type: 'entityViewSearchQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Campus North') },
          direction: 'FROM',
          maxLevel: 5,
          entityViewTypes: [],
        }),
        expect: 0,
      },
      {
        name: 'edgeSearchQuery (none related)',
        filter: () => ({
          type: 'edgeSearchQuery',
          rootEntity: { entityType: 'ASSET', id: assetId('Campus North') },
          direction: 'FROM',
          maxLevel: 5,
          edgeTypes: [],
        }),
        expect: 0,
      },
    ];
    for (const t of cases) {
      it(t.name, async () => {
        const page = await find(findQuery(t.filter()));
        if (typeof t.expect === 'number') assert.equal(page.totalElements, t.expect, JSON.stringify(names(page)));
        else assert.deepEqual(names(page), t.expect);
        assert.equal(await count({ entityFilter: t.filter() }), page.totalElements);
      });
    }

    it('multiRoot exposes parentId', async () => {
      const floor = assetId('Alpha Floor 1');
      const page = await find(
        findQuery(
          {
            type: 'relationsQuery',
            multiRoot: true,
            multiRootEntitiesType: 'ASSET',
            multiRootEntityIds: [floor],
            direction: 'FROM',
            maxLevel: 1,
          },
          { entityFields: [field('name'), field('parentId')] },
        ),
      );
      assert.equal(page.totalElements, 4);
      for (const d of page.data) assert.equal(d.latest.ENTITY_FIELD.parentId.value, floor);
    });

    it('unknown filter type: 500 code 2 JSON parse error', async () => {
      const r = await c.tenant.post('/api/entitiesQuery/find', findQuery({ type: 'stateEntity' }));
      assert.equal(r.status, 500);
      assert.equal(r.body.errorCode, 2);
      assert.match(r.body.message, /^JSON parse error: Could not resolve type id 'stateEntity'/);
    });

    it('validation errors of §3.7', async () => {
      const cases: [unknown, number, number, string][] = [
        [{ entityFilter: ALL_DEVICES }, 400, 31, 'Entity Data Page link must be specified.'],
        [
          { ...findQuery(ALL_DEVICES), pageLink: { page: 0, pageSize: 0 } },
          400,
          31,
          "Incorrect entity data page link page size '0'. Page size must be greater than zero.",
        ],
        [
          { ...findQuery(ALL_DEVICES), pageLink: { page: -1, pageSize: 5 } },
          400,
          31,
          "Incorrect entity data page link page '-1'. Page must be positive integer.",
        ],
        [
          findQuery(ALL_DEVICES, {}, { sortOrder: { key: field('na me'), direction: 'ASC' } }),
          400,
          31,
          'Invalid entity data page link sort property',
        ],
        [{ pageLink: { page: 0, pageSize: 5 } }, 400, 31, 'Query entity filter must be specified.'],
        [findQuery({ type: 'entityType' }), 400, 31, 'Entity type is required'],
        [findQuery({ type: 'entityName', entityNameFilter: 'x' }), 400, 31, 'Entity type is required'],
        [
          findQuery({ type: 'relationsQuery', multiRoot: true, multiRootEntityIds: ['x'] }),
          400,
          31,
          "Multi-root relation query filter should contain 'multiRootEntitiesType'",
        ],
        [
          findQuery({ type: 'relationsQuery', multiRoot: true, multiRootEntitiesType: 'ASSET' }),
          400,
          31,
          "Multi-root relation query filter should contain 'multiRootEntityIds' array that contains string " +
            'representation of UUIDs',
        ],
        [
          findQuery({ type: 'relationsQuery', direction: 'FROM' }),
          400,
          31,
          'Relation query filter root entity should not be blank',
        ],
        [
          findQuery({ type: 'entityList', entityType: 'DEVICE', entityList: ['not-a-uuid'] }),
          400,
          31,
          'Invalid UUID string: not-a-uuid',
        ],
      ];
      for (const [q, status, code, msg] of cases) {
        const r = await c.tenant.post('/api/entitiesQuery/find', q);
        assert.deepEqual([r.status, r.body.errorCode, r.body.message], [status, code, msg], JSON.stringify(q));
        assert.equal(typeof r.body.timestamp, 'number');
      }
    });

    it('malformed JSON body and unknown enum values are 500 code 2', async () => {
      const bad = await c.tenant.post('/api/entitiesQuery/find', '{"entityFilter":');
      assert.equal(bad.status, 500);
      assert.match(bad.body.message, /^JSON parse error/);
      const en = await c.tenant.post(
        '/api/entitiesQuery/find',
        findQuery({ type: 'entityType', entityType: 'GADGET' }),
      );
      assert.equal(en.status, 500);
      assert.match(en.body.message, /not one of the values accepted/);
    });
  });

  describe('key filters', () => {
    const d = (f: unknown): unknown => kf(temp, f);
    const cases: { name: string; filter?: unknown; keyFilters: unknown[]; op?: string; expect: number | string[] }[] = [
      {
        name: 'NUMERIC GREATER',
        keyFilters: [d(numPred('GREATER', 25))],
        expect: ['Thermo A-103', 'Thermo B-101', 'Thermo G-101', 'Thermo G-202'],
      },
      { name: 'NUMERIC GREATER_OR_EQUAL', keyFilters: [d(numPred('GREATER_OR_EQUAL', 25))], expect: 5 },
      { name: 'NUMERIC LESS', keyFilters: [d(numPred('LESS', 18.5))], expect: ['Thermo G-203'] },
      {
        name: 'NUMERIC LESS_OR_EQUAL',
        keyFilters: [d(numPred('LESS_OR_EQUAL', 18.5))],
        expect: ['Thermo B-203', 'Thermo G-203'],
      },
      {
        name: 'NUMERIC EQUAL matches the double 23.0',
        keyFilters: [d(numPred('EQUAL', 23))],
        expect: ['Thermo A-102'],
      },
      {
        name: 'NUMERIC NOT_EQUAL skips missing and string values',
        filter: THERMOSTATS,
        keyFilters: [d(numPred('NOT_EQUAL', 21.5))],
        expect: 16,
      },
      {
        name: 'STRING EQUAL matches only string values',
        keyFilters: [d(strPred('EQUAL', 'n/a'))],
        expect: ['Thermo B-102'],
      },
      { name: 'STRING predicate never matches a numeric value', keyFilters: [d(strPred('EQUAL', '21.5'))], expect: 0 },
      {
        name: 'STRING NOT_EQUAL matches neither numbers nor missing',
        keyFilters: [d(strPred('NOT_EQUAL', 'n/a'))],
        expect: 0,
      },
      {
        name: 'numeric-looking string vs STRING predicate',
        keyFilters: [kf(ts('humidity'), strPred('EQUAL', '45'))],
        expect: ['Thermo B-102'],
      },
      {
        name: 'numeric-looking string vs NUMERIC predicate',
        keyFilters: [kf(ts('humidity'), numPred('EQUAL', 45))],
        expect: ['Thermo A-102'],
      },
      {
        name: 'BOOLEAN EQUAL false',
        keyFilters: [kf(attr('active'), boolPred('EQUAL', false))],
        expect: ['Thermo B-102', 'Thermo B-202'],
      },
      {
        name: 'BOOLEAN NOT_EQUAL true (missing key excluded)',
        keyFilters: [kf(attr('active'), boolPred('NOT_EQUAL', true))],
        expect: 2,
      },
      {
        name: 'missing key never matches NOT_EQUAL',
        keyFilters: [kf(model, strPred('NOT_EQUAL', 'TH-100'))],
        expect: 15,
      },
      { name: 'STRING EQUAL', keyFilters: [kf(model, strPred('EQUAL', 'TH-100'))], expect: 12 },
      { name: 'STRING EQUAL is case-sensitive', keyFilters: [kf(model, strPred('EQUAL', 'th-300'))], expect: 0 },
      {
        name: 'STRING EQUAL ignoreCase',
        keyFilters: [kf(model, strPred('EQUAL', 'th-300', true))],
        expect: ['Thermo Lab'],
      },
      { name: 'STARTS_WITH', keyFilters: [kf(model, strPred('STARTS_WITH', 'TH-'))], expect: 20 },
      { name: 'ENDS_WITH', keyFilters: [kf(model, strPred('ENDS_WITH', '-1'))], expect: 6 },
      { name: 'CONTAINS', keyFilters: [kf(model, strPred('CONTAINS', 'H-2'))], expect: 7 },
      { name: 'CONTAINS with a LIKE wildcard', keyFilters: [kf(model, strPred('CONTAINS', 'TH-_00'))], expect: 20 },
      { name: 'NOT_CONTAINS (missing excluded)', keyFilters: [kf(model, strPred('NOT_CONTAINS', 'TH'))], expect: 7 },
      { name: 'IN without quotes', keyFilters: [kf(model, strPred('IN', 'TH-100, TH-300'))], expect: 13 },
      { name: 'IN with uniform quotes', keyFilters: [kf(model, strPred('IN', "'TH-200' , 'GW-X'"))], expect: 8 },
      {
        name: 'IN with mixed quotes keeps them',
        keyFilters: [kf(model, strPred('IN', "'TH-200', TH-300"))],
        expect: ['Thermo Lab'],
      },
      {
        name: 'IN with double quotes and ignoreCase',
        keyFilters: [kf(model, strPred('IN', '"gw-x","mt-1"', true))],
        expect: 7,
      },
      { name: 'NOT_IN', keyFilters: [kf(model, strPred('NOT_IN', 'TH-100,TH-200'))], expect: 8 },
      { name: 'empty string value disables the predicate', keyFilters: [kf(model, strPred('EQUAL', ''))], expect: 28 },
      {
        name: 'COMPLEX OR',
        keyFilters: [
          d({ type: 'COMPLEX', operation: 'OR', predicates: [numPred('LESS', 18), numPred('GREATER', 30)] }),
        ],
        expect: ['Thermo G-202', 'Thermo G-203'],
      },
      {
        name: 'COMPLEX nested',
        keyFilters: [
          d({
            type: 'COMPLEX',
            operation: 'AND',
            predicates: [
              { type: 'COMPLEX', operation: 'OR', predicates: [numPred('LESS', 18), numPred('GREATER', 30)] },
              numPred('NOT_EQUAL', 30.5),
            ],
          }),
        ],
        expect: ['Thermo G-203'],
      },
      {
        name: 'COMPLEX of only disabled predicates',
        keyFilters: [kf(model, { type: 'COMPLEX', operation: 'AND', predicates: [strPred('EQUAL', '')] })],
        expect: 28,
      },
      {
        name: 'same key filters are ANDed',
        keyFilters: [d(numPred('GREATER', 20)), d(numPred('LESS', 22))],
        expect: ['Thermo A-101', 'Thermo B-103', 'Thermo C-1', 'Thermo G-102'],
      },
      {
        name: 'different keys are ANDed',
        keyFilters: [d(numPred('GREATER', 20)), kf(model, strPred('EQUAL', 'TH-200'))],
        expect: ['Thermo B-101', 'Thermo B-103', 'Thermo B-201', 'Thermo G-102'],
      },
      {
        name: 'keyFiltersOperation OR',
        op: 'OR',
        keyFilters: [d(numPred('GREATER', 29)), kf(model, strPred('EQUAL', 'TH-300'))],
        expect: ['Thermo G-202', 'Thermo Lab'],
      },
      {
        name: 'ATTRIBUTE matches any scope',
        keyFilters: [kf(attr('note', 'ATTRIBUTE'), strPred('EQUAL', 'server note'))],
        expect: ['Thermo A-101'],
      },
      {
        name: 'scoped key looks only at its scope',
        keyFilters: [kf(attr('note', 'CLIENT_ATTRIBUTE'), strPred('EQUAL', 'server note'))],
        expect: 0,
      },
      {
        name: 'SHARED_ATTRIBUTE numeric',
        keyFilters: [kf(attr('targetTemperature', 'SHARED_ATTRIBUTE'), numPred('EQUAL', 21))],
        expect: 18,
      },
      { name: 'ENTITY_FIELD name', keyFilters: [kf(field('name'), strPred('STARTS_WITH', 'Meter'))], expect: 6 },
      {
        name: 'ENTITY_FIELD label: null never matches',
        filter: THERMOSTATS,
        keyFilters: [kf(field('label'), strPred('NOT_EQUAL', 'Room 101'))],
        expect: 15,
      },
      {
        name: 'ENTITY_FIELD createdTime numeric',
        keyFilters: [kf(field('createdTime'), numPred('GREATER', 0))],
        expect: 28,
      },
      {
        name: 'ENTITY_FIELD unknown field is ignored',
        keyFilters: [kf(field('nope'), strPred('EQUAL', 'x'))],
        expect: 28,
      },
      {
        name: 'ENTITY_FIELD computed ownerName',
        keyFilters: [kf(field('ownerName'), strPred('EQUAL', 'Customer C'))],
        expect: ['Thermo C-1'],
      },
    ];
    for (const t of cases) {
      it(t.name, async () => {
        const q = findQuery(t.filter ?? ALL_DEVICES, {
          keyFilters: t.keyFilters,
          ...(t.op ? { keyFiltersOperation: t.op } : {}),
        });
        const page = await find(q);
        if (typeof t.expect === 'number') assert.equal(page.totalElements, t.expect, JSON.stringify(names(page)));
        else assert.deepEqual(names(page), t.expect);
        const n = await count({ entityFilter: q.entityFilter, keyFilters: t.keyFilters, keyFiltersOperation: t.op });
        assert.equal(n, page.totalElements);
      });
    }
  });

  describe('predicate values as the server reads them (Jackson)', () => {
    const value = (v: Record<string, unknown>): unknown =>
      kf(temp, { type: 'NUMERIC', operation: 'GREATER', value: v });
    it('NUMERIC text is the number ("29", " 2.9e1 ", "+29.", userValue and resolvedValue too)', async () => {
      for (const v of [
        { defaultValue: '29' },
        { defaultValue: ' 2.9e1 ' },
        { defaultValue: '+29.' },
        { defaultValue: 0, userValue: '29' },
      ]) {
        assert.deepEqual(
          names(await find(findQuery(ALL_DEVICES, { keyFilters: [value(v)] }))),
          ['Thermo G-202'],
          JSON.stringify(v),
        );
      }
      const resolved = value({
        defaultValue: 0,
        dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'x', resolvedValue: '29' },
      });
      assert.deepEqual(names(await find(findQuery(ALL_DEVICES, { keyFilters: [resolved] }))), ['Thermo G-202']);
    });
    it('"", blank and "null" text are no value: a NUMERIC predicate without a value matches nothing', async () => {
      for (const t of ['', '  ', 'null']) {
        assert.equal(
          (await find(findQuery(ALL_DEVICES, { keyFilters: [value({ defaultValue: t })] }))).totalElements,
          0,
          JSON.stringify(t),
        );
      }
      // a userValue "" is no userValue: the defaultValue applies
      assert.deepEqual(
        names(await find(findQuery(ALL_DEVICES, { keyFilters: [value({ defaultValue: 29, userValue: '' })] }))),
        ['Thermo G-202'],
      );
    });
    it('other text is a JSON parse error (500, code 2)', async () => {
      for (const t of ['abc', '0x1D', '29d', '2 9']) {
        const r = await c.tenant.post(
          '/api/entitiesQuery/find',
          findQuery(ALL_DEVICES, { keyFilters: [value({ defaultValue: t })] }),
        );
        assert.equal(r.status, 500, t);
        assert.equal(r.body.errorCode, 2, t);
      }
    });
    it('userValue first, with a null defaultValue (FilterPredicateValue#getValue)', async () => {
      const f = kf(model, { type: 'STRING', operation: 'EQUAL', value: { defaultValue: null, userValue: 'TH-300' } });
      assert.deepEqual(names(await find(findQuery(ALL_DEVICES, { keyFilters: [f] }))), ['Thermo Lab']);
    });
    it('an empty COMPLEX is no condition: every entity, the ones without the key included', async () => {
      const empty = kf(temp, { type: 'COMPLEX', operation: 'AND', predicates: [] });
      assert.equal((await find(findQuery(ALL_DEVICES, { keyFilters: [empty] }))).totalElements, 28);
      assert.equal(await count({ entityFilter: ALL_DEVICES, keyFilters: [empty] }), 28);
      // under OR it drops out of the disjunction (EntityKeyMapping#buildQuery filters empty conditions)
      const page = await find(
        findQuery(ALL_DEVICES, {
          keyFilters: [empty, kf(model, strPred('EQUAL', 'TH-300'))],
          keyFiltersOperation: 'OR',
        }),
      );
      assert.deepEqual(names(page), ['Thermo Lab']);
    });
    it("a null type (Jackson's empty Java DeviceTypeFilter) matches nothing; other types still match", async () => {
      assert.equal(await count({ entityFilter: { type: 'deviceType', deviceTypes: [null] } }), 0);
      assert.equal(await count({ entityFilter: { type: 'deviceType', deviceTypes: ['meter', null] } }), 6);
    });
    it('a singular type on a *SearchQuery is ignored (the filter has no such field)', async () => {
      const root = { entityType: 'ASSET', id: c.sim.data.mustFindByName('ASSET', 'Campus North').id };
      const base = {
        type: 'deviceSearchQuery',
        rootEntity: root,
        direction: 'FROM',
        maxLevel: 5,
        relationType: 'Contains',
      };
      const all = await count({ entityFilter: base });
      assert.ok(all > 4);
      assert.equal(await count({ entityFilter: { ...base, deviceType: 'meter' } }), all);
      assert.equal(await count({ entityFilter: { ...base, deviceTypes: ['meter'] } }), 4);
      assert.equal(await count({ entityFilter: { ...base, deviceTypes: [null] } }), 0);
    });
  });

  describe('dynamic values', () => {
    const dyn = (
      sourceType: string,
      sourceAttribute: string,
      defaultValue: number,
      userValue: number | null = null,
    ): unknown =>
      kf(temp, {
        type: 'NUMERIC',
        operation: 'GREATER',
        value: { defaultValue, userValue, dynamicValue: { sourceType, sourceAttribute } },
      });
    it('CURRENT_TENANT resolves the tenant SERVER_SCOPE attribute', async () => {
      const page = await find(findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_TENANT', 'tempThreshold', 0)] }));
      assert.equal(page.totalElements, 4); // > 25
    });
    it('falls back to defaultValue when the attribute is missing', async () => {
      const page = await find(findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_TENANT', 'missing', 29)] }));
      assert.deepEqual(names(page), ['Thermo G-202']);
    });
    it('CURRENT_CUSTOMER for a tenant admin uses the default', async () => {
      const page = await find(findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_CUSTOMER', 'tempThreshold', 28)] }));
      assert.deepEqual(names(page), ['Thermo G-101', 'Thermo G-202']);
    });
    it('CURRENT_CUSTOMER for a customer user reads the customer attribute (22.5)', async () => {
      const page = await find(
        findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_CUSTOMER', 'tempThreshold', 100)] }),
        () => c.customer,
      );
      assert.deepEqual(names(page), ['Thermo A-102', 'Thermo A-103', 'Thermo A-202']);
    });
    it('CURRENT_USER reads the user attribute (threshold 24 for the customer user)', async () => {
      const page = await find(
        findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_USER', 'threshold', 100)] }),
        () => c.customer,
      );
      assert.deepEqual(names(page), ['Thermo A-103', 'Thermo A-202']);
    });
    it('userValue wins over the dynamic value', async () => {
      const page = await find(findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_TENANT', 'tempThreshold', 0, 30)] }));
      assert.deepEqual(names(page), ['Thermo G-202']);
    });
    it('a client-sent resolvedValue is kept', async () => {
      const f = kf(temp, {
        type: 'NUMERIC',
        operation: 'GREATER',
        value: {
          defaultValue: 0,
          dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'tempThreshold', resolvedValue: 30 },
        },
      });
      assert.deepEqual(names(await find(findQuery(ALL_DEVICES, { keyFilters: [f] }))), ['Thermo G-202']);
    });
    it('CURRENT_DEVICE is a 500 over REST find, even with a userValue (DefaultEntityQueryService#resolveDynamicValue)', async () => {
      for (const userValue of [null, 30]) {
        const r = await c.tenant.post(
          '/api/entitiesQuery/find',
          findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_DEVICE', 'x', 0, userValue)] }),
        );
        assert.equal(r.status, 500);
        assert.equal(r.body.errorCode, 2);
        assert.equal(r.body.message, 'Not supported operation for source type: {CURRENT_DEVICE}');
      }
    });
    it('CURRENT_DEVICE with a resolvedValue is not resolved: the resolvedValue is used as is', async () => {
      const f = kf(temp, {
        type: 'NUMERIC',
        operation: 'GREATER',
        value: {
          defaultValue: 0,
          dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'x', resolvedValue: 29 },
        },
      });
      assert.deepEqual(names(await find(findQuery(ALL_DEVICES, { keyFilters: [f] }))), ['Thermo G-202']);
    });
    it('REST counts resolve no dynamic value: defaultValue applies, CURRENT_DEVICE is no error', async () => {
      // find reads tempThreshold 25 (4 devices); count never resolves, so GREATER 29 (1 device)
      assert.equal(
        (await find(findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_TENANT', 'tempThreshold', 29)] })))
          .totalElements,
        4,
      );
      assert.equal(
        await count({ entityFilter: ALL_DEVICES, keyFilters: [dyn('CURRENT_TENANT', 'tempThreshold', 29)] }),
        1,
      );
      assert.equal(await count({ entityFilter: ALL_DEVICES, keyFilters: [dyn('CURRENT_DEVICE', 'x', 29)] }), 1);
    });
    it('key discovery: v1 runs the REST find (CURRENT_DEVICE is a 500), v2 resolves nothing', async () => {
      const q = findQuery(ALL_DEVICES, { keyFilters: [dyn('CURRENT_DEVICE', 'x', 29)] });
      const v1 = await c.tenant.post('/api/entitiesQuery/find/keys?timeseries=true&attributes=false', q);
      assert.equal(v1.status, 500);
      const v2 = await c.tenant.post('/api/v2/entitiesQuery/find/keys?includeAttributes=false', q);
      assert.equal(v2.status, 200);
      assert.ok((v2.body.timeseries as Array<{ key: string }>).some((k) => k.key === 'temperature'));
    });
    it('STRING dynamic value from a tenant attribute', async () => {
      const f = kf(model, {
        type: 'STRING',
        operation: 'STARTS_WITH',
        ignoreCase: false,
        value: { defaultValue: 'zzz', dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'modelPrefix' } },
      });
      assert.equal((await find(findQuery(ALL_DEVICES, { keyFilters: [f] }))).totalElements, 20);
    });
  });

  describe('sorting, text search, paging', () => {
    const tempNames = async (direction: string | undefined, pageSize = 100): Promise<string[]> =>
      names(
        await find(
          findQuery(
            THERMOSTATS,
            { latestValues: [temp] },
            { pageSize, sortOrder: { key: temp, ...(direction ? { direction } : {}) } },
          ),
        ),
      );
    it('telemetry sort DESC: non-numeric values first (NULLS FIRST), then numbers', async () => {
      assert.deepEqual((await tempNames('DESC')).slice(0, 4), [
        'Thermo B-102',
        'Thermo B-202',
        'Thermo G-202',
        'Thermo G-101',
      ]);
    });
    it('telemetry sort ASC: numbers ascending, then missing ("") and strings', async () => {
      const n = await tempNames('ASC');
      assert.deepEqual(n.slice(0, 3), ['Thermo G-203', 'Thermo B-203', 'Thermo A-201']);
      assert.deepEqual(n.slice(-2), ['Thermo B-202', 'Thermo B-102']);
    });
    it('a missing direction sorts descending', async () => {
      assert.deepEqual(await tempNames(undefined, 3), ['Thermo B-102', 'Thermo B-202', 'Thermo G-202']);
    });
    it('entity field sort both directions, id tiebreak', async () => {
      const q = (direction: string): Record<string, unknown> =>
        findQuery({ type: 'deviceType', deviceTypes: ['meter'] }, {}, { sortOrder: { key: field('name'), direction } });
      assert.deepEqual(names(await find(q('ASC'))), [
        'Meter A-100',
        'Meter A-200',
        'Meter B-100',
        'Meter B-200',
        'Meter G-100',
        'Meter G-200',
      ]);
      assert.deepEqual(names(await find(q('DESC'))), [
        'Meter G-200',
        'Meter G-100',
        'Meter B-200',
        'Meter B-100',
        'Meter A-200',
        'Meter A-100',
      ]);
      // equal labels ("Main meter"): the id decides, in the sort direction
      const byLabel = await find(
        findQuery(
          { type: 'deviceType', deviceTypes: ['meter'] },
          { entityFields: [field('name')] },
          { sortOrder: { key: field('label'), direction: 'ASC' } },
        ),
      );
      const ids = byLabel.data.map((x: { entityId: { id: string } }) => x.entityId.id);
      assert.deepEqual(ids, [...ids].sort());
    });
    it('attribute sort (sort-only key is hidden from latest)', async () => {
      const page = await find(
        findQuery(
          { type: 'assetType', assetTypes: ['building'] },
          {},
          { sortOrder: { key: attr('area'), direction: 'DESC' } },
        ),
      );
      assert.deepEqual(names(page), ['Building Gamma', 'Building Alpha', 'Building Beta']);
      assert.equal(page.data[0].latest.SERVER_ATTRIBUTE, undefined);
    });
    it('textSearch: case-insensitive contains over the concatenated requested fields', async () => {
      const q = (text: string, fields = [field('name'), field('label')]): Record<string, unknown> =>
        findQuery(THERMOSTATS, { entityFields: fields }, { textSearch: text });
      assert.equal((await find(q('room 10'))).totalElements, 7);
      assert.deepEqual(names(await find(q('101ROOM'))), ['Thermo A-101', 'Thermo B-101', 'Thermo G-101']);
      assert.equal((await find(q('room', []))).totalElements, 20, 'ignored without requested fields');
    });
    it('textSearch includes latest values', async () => {
      const page = await find(findQuery(THERMOSTATS, { latestValues: [temp] }, { textSearch: '30.5' }));
      assert.deepEqual(names(page), ['Thermo G-202']);
    });
    it('paging: totalPages, hasNext, a page past the end', async () => {
      const meters = { type: 'deviceType', deviceTypes: ['meter'] };
      const p0 = await find(findQuery(meters, {}, { pageSize: 4, page: 0 }));
      assert.deepEqual([p0.data.length, p0.totalPages, p0.totalElements, p0.hasNext], [4, 2, 6, true]);
      const p1 = await find(findQuery(meters, {}, { pageSize: 4, page: 1 }));
      assert.deepEqual([p1.data.length, p1.hasNext], [2, false]);
      assert.deepEqual(names(p1), ['Meter G-100', 'Meter G-200']);
      const p9 = await find(findQuery(meters, {}, { pageSize: 4, page: 9 }));
      assert.deepEqual(p9, { data: [], totalPages: 2, totalElements: 6, hasNext: false });
      const none = await find(findQuery({ type: 'deviceType', deviceTypes: ['nothing'] }));
      assert.deepEqual(none, { data: [], totalPages: 0, totalElements: 0, hasNext: false });
    });
  });

  describe('response shape and entity fields', () => {
    it('matches §8.2: typed latest groups, missing values, SQL formatting', async () => {
      const page = await find(
        findQuery(
          { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo A-102' },
          {
            entityFields: [field('name'), field('label')],
            latestValues: [temp, attr('model'), attr('nothing', 'SHARED_ATTRIBUTE'), ts('humidity')],
          },
        ),
      );
      assert.equal(page.totalElements, 1);
      const d = page.data[0];
      assert.deepEqual(Object.keys(d), ['entityId', 'latest', 'timeseries', 'aggLatest']);
      assert.deepEqual(d.entityId, {
        entityType: 'DEVICE',
        id: c.sim.data.mustFindByName('DEVICE', 'Thermo A-102').id,
      });
      assert.deepEqual(d.timeseries, {});
      assert.deepEqual(d.aggLatest, {});
      assert.deepEqual(d.latest.ENTITY_FIELD.name, { ts: c.clock.now, value: 'Thermo A-102' });
      assert.deepEqual(
        d.latest.TIME_SERIES.temperature,
        { ts: 1767225600000, value: '23' },
        'double 23.0 prints as "23"',
      );
      assert.deepEqual(d.latest.TIME_SERIES.humidity, { ts: 1767225600000, value: '45' });
      assert.equal(d.latest.SERVER_ATTRIBUTE.model.value, 'TH-100');
      assert.deepEqual(d.latest.SHARED_ATTRIBUTE.nothing, { ts: 0, value: '' });
    });
    it('JSON and boolean values', async () => {
      const page = await find(
        findQuery(
          { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo A-101' },
          { latestValues: [attr('config', 'SHARED_ATTRIBUTE'), attr('active'), attr('note', 'ATTRIBUTE')] },
        ),
      );
      const l = page.data[0].latest;
      assert.equal(l.SHARED_ATTRIBUTE.config.value, '{"mode":"eco","interval":60}');
      assert.equal(l.SERVER_ATTRIBUTE.active.value, 'true');
      assert.equal(l.ATTRIBUTE.note.value, 'client note', 'ATTRIBUTE selects the newest scope');
    });
    it('entity fields per type (§3.6)', async () => {
      const fields = [
        'name',
        'title',
        'label',
        'type',
        'entityType',
        'displayName',
        'ownerName',
        'ownerType',
        'createdTime',
        'email',
        'city',
        'firstName',
        'nope',
      ].map(field);
      const one = async (entityType: string, name: string): Promise<Record<string, string>> => {
        const p = await find(
          findQuery({ type: 'entityName', entityType, entityNameFilter: name }, { entityFields: fields }),
        );
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(p.data[0].latest.ENTITY_FIELD as Record<string, { value: string }>))
          out[k] = v.value;
        return out;
      };
      const dev = await one('DEVICE', 'Thermo A-103');
      assert.deepEqual(
        [
          dev.name,
          dev.title,
          dev.label,
          dev.type,
          dev.entityType,
          dev.displayName,
          dev.ownerName,
          dev.ownerType,
          dev.email,
          dev.nope,
        ],
        ['Thermo A-103', 'Thermo A-103', '', 'thermostat', 'DEVICE', 'Thermo A-103', 'Customer A', 'CUSTOMER', '', ''],
      );
      assert.equal(dev.createdTime, String(c.sim.data.mustFindByName('DEVICE', 'Thermo A-103').createdTime));
      const gw = await one('DEVICE', 'Gateway 1');
      assert.deepEqual([gw.displayName, gw.ownerName, gw.ownerType], ['GW', 'Tenant', 'TENANT']);
      const cust = await one('CUSTOMER', 'Customer A');
      assert.deepEqual(
        [cust.name, cust.label, cust.title, cust.displayName, cust.city, cust.email, cust.type],
        ['Customer A', 'Customer A', 'Customer A', 'Customer A', 'Lviv', 'a@example.com', ''],
      );
      const user = await one('USER', 'customer@');
      assert.deepEqual(
        [user.name, user.label, user.firstName, user.displayName, user.ownerName, user.entityType],
        ['customer@thingsboard.org', 'customer@thingsboard.org', 'Carol', 'Carol Customer', 'Customer A', 'USER'],
      );
      const view = await one('ENTITY_VIEW', 'View A-101');
      assert.deepEqual(
        [view.name, view.label, view.displayName, view.type],
        ['View A-101', '', 'View A-101', 'roomView'],
      );
      const dash = await one('DASHBOARD', 'Main');
      assert.deepEqual([dash.name, dash.title, dash.type], ['Main Dashboard', 'Main Dashboard', '']);
    });
    it('filter-only keys in latest follow the server rule (two-step optimisation)', async () => {
      const kfs = [kf(temp, numPred('GREATER', 29))];
      const optimised = await find(findQuery(THERMOSTATS, { keyFilters: kfs }));
      assert.equal(optimised.data[0].latest.TIME_SERIES, undefined, 'optimised path: not selected');
      const withSearch = await find(findQuery(THERMOSTATS, { keyFilters: kfs }, { textSearch: 'Thermo' }));
      assert.equal(withSearch.data[0].latest.TIME_SERIES.temperature.value, '30.5');
      const noFields = await find({ ...findQuery(THERMOSTATS, { keyFilters: kfs }), entityFields: [] });
      assert.equal(noFields.data[0].latest.TIME_SERIES.temperature.value, '30.5');
      assert.equal(noFields.data[0].latest.ENTITY_FIELD, undefined, 'entity-field filters are never selected');
    });
  });

  describe('permissions (§5.1)', () => {
    const customerCases: [string, unknown, number | string[]][] = [
      ['devices', ALL_DEVICES, 8],
      ['assets', { type: 'entityType', entityType: 'ASSET' }, ['Alpha Floor 1', 'Alpha Floor 2', 'Building Alpha']],
      ['customers: only its own', { type: 'entityType', entityType: 'CUSTOMER' }, ['Customer A']],
      ['dashboards: assigned ones', { type: 'entityType', entityType: 'DASHBOARD' }, ['Main Dashboard']],
      ['tenant: none', { type: 'entityType', entityType: 'TENANT' }, []],
      ['users: of its customer', { type: 'entityType', entityType: 'USER' }, ['customer@thingsboard.org']],
      ['edges', { type: 'entityType', entityType: 'EDGE' }, ['Edge South']],
      ["another customer's device by id: silently nothing", null, 0],
      [
        'CURRENT_CUSTOMER alias',
        { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_CUSTOMER' } },
        ['Customer A'],
      ],
      [
        'CURRENT_USER_OWNER alias',
        { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER_OWNER' } },
        ['Customer A'],
      ],
      ['apiUsageState: its own', { type: 'apiUsageState' }, ['Customer A']],
    ];
    for (const [name, filter, expect] of customerCases) {
      it(`customer user: ${name}`, async () => {
        const f = filter ?? {
          type: 'singleEntity',
          singleEntity: { entityType: 'DEVICE', id: c.sim.data.mustFindByName('DEVICE', 'Thermo B-101').id },
        };
        const page = await find(findQuery(f), () => c.customer);
        if (typeof expect === 'number') assert.equal(page.totalElements, expect);
        else assert.deepEqual(names(page), expect);
      });
    }
    it('customer user: relation results are filtered to its entities', async () => {
      const page = await find(
        findQuery({
          type: 'relationsQuery',
          rootEntity: { entityType: 'ASSET', id: c.sim.data.mustFindByName('ASSET', 'Campus North').id },
          direction: 'FROM',
          maxLevel: 5,
          filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
        }),
        () => c.customer,
      );
      assert.equal(page.totalElements, 8);
      assert.ok(names(page).every((n) => n.includes(' A-')));
    });
    it('customer user: apiUsageState of another customer is refused', async () => {
      const r = await c.customer.post(
        '/api/entitiesQuery/find',
        findQuery({
          type: 'apiUsageState',
          customerId: { entityType: 'CUSTOMER', id: c.sim.data.mustFindByName('CUSTOMER', 'Customer B').id },
        }),
      );
      assert.equal(r.status, 403);
    });
  });

  describe('count endpoint', () => {
    it('answers a bare JSON number', async () => {
      const r = await c.tenant.post('/api/entitiesQuery/count', { entityFilter: ALL_DEVICES });
      assert.equal(r.text, '28');
      assert.equal(r.headers.get('content-type'), 'application/json');
    });
    it('validates the entity filter', async () => {
      const r = await c.tenant.post('/api/entitiesQuery/count', { keyFilters: [] });
      assert.deepEqual([r.status, r.body.message], [400, 'Query entity filter must be specified.']);
    });
  });
});
