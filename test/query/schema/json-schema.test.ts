import assert from 'node:assert/strict';
import { jsonSchema } from '../../../src/query-model/schema/json-schema';
import { QUERY_MODES, type QueryMode } from '../../../src/query-model/schema/spec';
import { U1, U2 } from '../helpers';
import { ajv, runtimeOk, schemaOk, validator } from './support';

describe('query/schema/json-schema: JSON schema of a query', () => {
  it('is a valid draft-07 schema for every mode (ajv strict mode)', () => {
    for (const m of QUERY_MODES) {
      const s = jsonSchema(m);
      assert.equal(s.$schema, 'http://json-schema.org/draft-07/schema#');
      assert.ok(ajv.validateSchema(s), JSON.stringify(ajv.errors));
      validator(m);
    }
  });
  const DEV = { type: 'entityType', entityType: 'DEVICE' };
  const kf = (predicate: unknown, extra: Record<string, unknown> = {}) => ({
    entityFilter: DEV,
    keyFilters: [{ key: { type: 'TIME_SERIES', key: 't' }, predicate, ...extra }],
  });
  const num = (value: unknown, operation = 'GREATER') => ({ type: 'NUMERIC', operation, value });

  /** [description, mode, query]: the schema and the runtime validator must agree on each. */
  const CORPUS: [string, QueryMode, unknown][] = [
    ['empty entity query', 'entityData', {}],
    ['empty alarm count', 'alarmCount', {}],
    ['null entity filter on a count of alarms', 'alarmCount', { entityFilter: null }],
    ['filter type unknown', 'entityCount', { entityFilter: { type: 'stateEntity' } }],
    ['filter type with the wrong case', 'entityCount', { entityFilter: { type: 'EntityType', entityType: 'DEVICE' } }],
    ['entity type unknown', 'entityCount', { entityFilter: { type: 'entityType', entityType: 'device' } }],
    ['entity type missing', 'entityCount', { entityFilter: { type: 'entityType' } }],
    ['entityList empty', 'entityCount', { entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: [] } }],
    [
      'entityList bad uuid',
      'entityCount',
      { entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: ['x'] } },
    ],
    [
      'entityList upper-case uuid',
      'entityCount',
      { entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: [U1.toUpperCase()] } },
    ],
    [
      'entityName without the name filter',
      'entityCount',
      { entityFilter: { type: 'entityName', entityType: 'DEVICE' } },
    ],
    ['deviceType list empty', 'entityCount', { entityFilter: { type: 'deviceType', deviceTypes: [] } }],
    ['deviceType singular', 'entityCount', { entityFilter: { type: 'deviceType', deviceType: 'a' } }],
    [
      'deviceType empty list and singular',
      'entityCount',
      { entityFilter: { type: 'deviceType', deviceTypes: [], deviceType: 'a' } },
    ],
    ['deviceType empty singular', 'entityCount', { entityFilter: { type: 'deviceType', deviceType: '' } }],
    [
      'deviceType null name filter',
      'entityCount',
      { entityFilter: { type: 'deviceType', deviceTypes: ['a'], deviceNameFilter: null } },
    ],
    [
      'deviceType numeric name filter',
      'entityCount',
      { entityFilter: { type: 'deviceType', deviceTypes: ['a'], deviceNameFilter: 1 } },
    ],
    ['assetType list of numbers', 'entityCount', { entityFilter: { type: 'assetType', assetTypes: [1] } }],
    [
      'singleEntity alias',
      'entityCount',
      { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_USER' } } },
    ],
    [
      'singleEntity without id',
      'entityCount',
      { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE' } } },
    ],
    [
      'singleEntity alias with a bad id',
      'entityCount',
      { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_CUSTOMER', id: 'x' } } },
    ],
    [
      'singleEntity alias with a null id',
      'entityCount',
      { entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_CUSTOMER', id: null } } },
    ],
    [
      'apiUsageState with a customer uuid string',
      'entityCount',
      { entityFilter: { type: 'apiUsageState', customerId: U1 } },
    ],
    [
      'apiUsageState with a user id',
      'entityCount',
      { entityFilter: { type: 'apiUsageState', customerId: { entityType: 'USER', id: U1 } } },
    ],
    [
      'apiUsageState with a customer id without type',
      'entityCount',
      { entityFilter: { type: 'apiUsageState', customerId: { id: U1 } } },
    ],
    ['relationsQuery without root', 'entityCount', { entityFilter: { type: 'relationsQuery', direction: 'FROM' } }],
    [
      'relationsQuery without direction',
      'entityCount',
      { entityFilter: { type: 'relationsQuery', rootEntity: { entityType: 'ASSET', id: U1 } } },
    ],
    [
      'relationsQuery multiRoot without ids',
      'entityCount',
      { entityFilter: { type: 'relationsQuery', direction: 'TO', multiRoot: true, multiRootEntitiesType: 'ASSET' } },
    ],
    [
      'relationsQuery multiRoot with empty ids',
      'entityCount',
      {
        entityFilter: {
          type: 'relationsQuery',
          direction: 'TO',
          multiRoot: true,
          multiRootEntitiesType: 'ASSET',
          multiRootEntityIds: [],
        },
      },
    ],
    [
      'relationsQuery multiRoot false with empty ids',
      'entityCount',
      {
        entityFilter: {
          type: 'relationsQuery',
          direction: 'TO',
          multiRoot: false,
          rootEntity: { entityType: 'ASSET', id: U1 },
          multiRootEntityIds: [],
        },
      },
    ],
    [
      'relationsQuery multiRoot null and a root',
      'entityCount',
      {
        entityFilter: {
          type: 'relationsQuery',
          direction: 'TO',
          multiRoot: null,
          rootEntity: { entityType: 'ASSET', id: U1 },
        },
      },
    ],
    [
      'relationsQuery multiRoot as a string',
      'entityCount',
      {
        entityFilter: {
          type: 'relationsQuery',
          direction: 'TO',
          multiRoot: 'true',
          rootEntity: { entityType: 'ASSET', id: U1 },
        },
      },
    ],
    [
      'relationsQuery negative level',
      'entityCount',
      {
        entityFilter: {
          type: 'relationsQuery',
          direction: 'FROM',
          rootEntity: { entityType: 'ASSET', id: U1 },
          maxLevel: -1,
        },
      },
    ],
    [
      'relationsQuery fractional level',
      'entityCount',
      {
        entityFilter: {
          type: 'relationsQuery',
          direction: 'FROM',
          rootEntity: { entityType: 'ASSET', id: U1 },
          maxLevel: 1.5,
        },
      },
    ],
    [
      'relationsQuery filter with a bad entity type',
      'entityCount',
      {
        entityFilter: {
          type: 'relationsQuery',
          direction: 'FROM',
          rootEntity: { entityType: 'ASSET', id: U1 },
          filters: [{ entityTypes: ['X'] }],
        },
      },
    ],
    [
      'relationsQuery filters null',
      'entityCount',
      {
        entityFilter: {
          type: 'relationsQuery',
          direction: 'FROM',
          rootEntity: { entityType: 'ASSET', id: U1 },
          filters: null,
        },
      },
    ],
    ['search query without root', 'entityCount', { entityFilter: { type: 'deviceSearchQuery', direction: 'FROM' } }],
    [
      'search query with a bad direction',
      'entityCount',
      { entityFilter: { type: 'deviceSearchQuery', direction: 'UP', rootEntity: { entityType: 'ASSET', id: U1 } } },
    ],
    [
      'search query with a singular type',
      'entityCount',
      {
        entityFilter: {
          type: 'assetSearchQuery',
          direction: 'FROM',
          rootEntity: { entityType: 'ASSET', id: U1 },
          assetType: 'x',
        },
      },
    ],
    ['bare numeric value', 'entityCount', kf(num(20))],
    ['numeric value as a string', 'entityCount', kf(num('20'))],
    ['numeric value object', 'entityCount', kf(num({ defaultValue: 20, userValue: null, dynamicValue: null }))],
    ['numeric value without default', 'entityCount', kf(num({ userValue: 3 }))],
    ['numeric value null default and no dynamic', 'entityCount', kf(num({ defaultValue: null }))],
    [
      'dynamic value without default',
      'entityCount',
      kf(num({ dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' } })),
    ],
    [
      'dynamic value with a bad source',
      'entityCount',
      kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_THING', sourceAttribute: 'max' } })),
    ],
    [
      'dynamic value without attribute',
      'entityCount',
      kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_USER' } })),
    ],
    ['string op on a numeric predicate', 'entityCount', kf(num(1, 'CONTAINS'))],
    ['string predicate', 'entityCount', kf({ type: 'STRING', operation: 'CONTAINS', value: 'x', ignoreCase: true })],
    ['string predicate with a number', 'entityCount', kf({ type: 'STRING', operation: 'CONTAINS', value: 1 })],
    [
      'boolean predicate',
      'entityCount',
      kf({ type: 'BOOLEAN', operation: 'NOT_EQUAL', value: { defaultValue: false } }),
    ],
    ['boolean predicate with GREATER', 'entityCount', kf({ type: 'BOOLEAN', operation: 'GREATER', value: true })],
    [
      'complex predicate',
      'entityCount',
      kf({
        type: 'COMPLEX',
        operation: 'OR',
        predicates: [num(1), { type: 'COMPLEX', operation: 'AND', predicates: [num(2, 'LESS')] }],
      }),
    ],
    ['complex predicate empty', 'entityCount', kf({ type: 'COMPLEX', operation: 'OR', predicates: [] })],
    [
      'complex predicate empty inside another',
      'entityData',
      kf({ type: 'COMPLEX', operation: 'AND', predicates: [{ type: 'COMPLEX', operation: 'OR', predicates: [] }] }),
    ],
    ['numeric text with spaces and an exponent', 'entityCount', kf(num({ defaultValue: ' 2e1 ' }))],
    ['numeric text with a trailing dot', 'entityCount', kf(num({ defaultValue: '5.' }))],
    ['numeric text that is not a number', 'entityCount', kf(num({ defaultValue: 'abc' }))],
    ['numeric hex text', 'entityCount', kf(num('0x10'))],
    ['numeric empty text alone', 'entityCount', kf(num({ defaultValue: '' }))],
    ['numeric "null" text alone', 'entityCount', kf(num({ defaultValue: 'null' }))],
    [
      'numeric empty text with a dynamic value',
      'entityCount',
      kf(num({ defaultValue: '', dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'max' } })),
    ],
    ['numeric userValue as text', 'entityCount', kf(num({ userValue: '25' }))],
    ['numeric userValue empty text, nothing else', 'entityCount', kf(num({ userValue: '' }))],
    [
      'string userValue alone, defaultValue null',
      'entityCount',
      kf({ type: 'STRING', operation: 'EQUAL', value: { defaultValue: null, userValue: 'abc' } }),
    ],
    [
      'boolean userValue alone',
      'entityCount',
      kf({ type: 'BOOLEAN', operation: 'EQUAL', value: { userValue: false } }),
    ],
    [
      'string userValue of the wrong type',
      'entityCount',
      kf({ type: 'STRING', operation: 'EQUAL', value: { userValue: 3 } }),
    ],
    [
      'boolean value as text',
      'entityCount',
      kf({ type: 'BOOLEAN', operation: 'EQUAL', value: { defaultValue: 'true' } }),
    ],
    [
      'resolvedValue with the dynamic value',
      'entityData',
      kf(num({ dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'a', resolvedValue: 30 } })),
    ],
    [
      'resolvedValue as numeric text',
      'entityData',
      kf(num({ dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'a', resolvedValue: '30' } })),
    ],
    [
      'resolvedValue of the wrong type',
      'entityCount',
      kf({
        type: 'STRING',
        operation: 'EQUAL',
        value: {
          defaultValue: '',
          dynamicValue: { sourceType: 'CURRENT_USER', sourceAttribute: 'a', resolvedValue: 3 },
        },
      }),
    ],
    [
      'CURRENT_DEVICE in an entity data query',
      'entityData',
      kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } })),
    ],
    [
      'CURRENT_DEVICE with a userValue in an entity data query',
      'entityData',
      kf(
        num({ defaultValue: 1, userValue: 2, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }),
      ),
    ],
    [
      'CURRENT_DEVICE with a resolvedValue in an entity data query',
      'entityData',
      kf(
        num({
          defaultValue: 1,
          dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max', resolvedValue: 3 },
        }),
      ),
    ],
    [
      'CURRENT_DEVICE with a null resolvedValue',
      'entityData',
      kf(
        num({
          defaultValue: 1,
          dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max', resolvedValue: null },
        }),
      ),
    ],
    [
      'CURRENT_DEVICE in a count',
      'entityCount',
      kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } })),
    ],
    [
      'CURRENT_DEVICE with a userValue in a count',
      'entityCount',
      kf(
        num({ defaultValue: 1, userValue: 2, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }),
      ),
    ],
    [
      'CURRENT_DEVICE with a userValue in an alarm query',
      'alarmData',
      kf(num({ userValue: 2, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } })),
    ],
    [
      'CURRENT_DEVICE in an alarm count',
      'alarmCount',
      kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } })),
    ],
    ['deviceType list with a null', 'entityCount', { entityFilter: { type: 'deviceType', deviceTypes: [null] } }],
    [
      'search query with a null type',
      'entityCount',
      {
        entityFilter: {
          type: 'edgeSearchQuery',
          direction: 'FROM',
          rootEntity: { entityType: 'ASSET', id: U1 },
          edgeTypes: [null, 'e'],
        },
      },
    ],
    ['alarm filter typeList with a null', 'alarmCount', { typeList: [null] }],
    [
      'complex predicate nested bad',
      'entityCount',
      kf({
        type: 'COMPLEX',
        operation: 'OR',
        predicates: [{ type: 'COMPLEX', operation: 'AND', predicates: [num(2, 'LIKE')] }],
      }),
    ],
    ['key filter with a bad value type', 'entityCount', kf(num(1), { valueType: 'NUMBER' })],
    ['key filter with DATE_TIME', 'entityCount', kf(num(1), { valueType: 'DATE_TIME' })],
    [
      'key filter with an alarm key',
      'entityCount',
      { entityFilter: DEV, keyFilters: [{ key: { type: 'ALARM_FIELD', key: 't' }, predicate: num(1) }] },
    ],
    [
      'key filter with an empty key',
      'entityCount',
      { entityFilter: DEV, keyFilters: [{ key: { type: 'ATTRIBUTE', key: '' }, predicate: num(1) }] },
    ],
    ['key filters as an object', 'entityCount', { entityFilter: DEV, keyFilters: {} }],
    ['key filters OR', 'entityCount', { entityFilter: DEV, keyFiltersOperation: 'OR' }],
    ['key filters XOR', 'entityCount', { entityFilter: DEV, keyFiltersOperation: 'XOR' }],
    ['page size 0', 'entityData', { entityFilter: DEV, pageLink: { pageSize: 0 } }],
    ['page -1', 'entityData', { entityFilter: DEV, pageLink: { page: -1 } }],
    ['pageLink null', 'entityData', { entityFilter: DEV, pageLink: null }],
    ['pageLink array', 'entityData', { entityFilter: DEV, pageLink: [] }],
    ['text search null', 'entityData', { entityFilter: DEV, pageLink: { textSearch: null } }],
    [
      'sort without direction',
      'entityData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' } } } },
    ],
    [
      'sort by an entity field the server refuses',
      'entityData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'created(Time)' } } } },
    ],
    [
      'sort by a Unicode entity field',
      'entityData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'Température_2' } } } },
    ],
    [
      'sort by a time series with a space',
      'entityData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'TIME_SERIES', key: 'temp (C)' } } } },
    ],
    [
      'sort by an alarm field the server refuses',
      'alarmData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'a.b' }, direction: 'ASC' } } },
    ],
    [
      'sort an alarm query by an entity field the server refuses',
      'alarmData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'x y' }, direction: 'ASC' } } },
    ],
    [
      'sort by an alarm field in an entity query',
      'entityData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'x' } } } },
    ],
    [
      'sort by an alarm field in an alarm query',
      'alarmData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'x' }, direction: 'DESC' } } },
    ],
    [
      'sort sideways',
      'alarmData',
      { entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ALARM_FIELD', key: 'x' }, direction: 'UP' } } },
    ],
    [
      'entity fields with an alarm key',
      'entityData',
      { entityFilter: DEV, entityFields: [{ type: 'ALARM_FIELD', key: 'x' }] },
    ],
    [
      'alarm fields of any key type',
      'alarmData',
      { entityFilter: DEV, alarmFields: [{ type: 'TIME_SERIES', key: 'x' }] },
    ],
    ['statusList with a bad value', 'alarmData', { entityFilter: DEV, pageLink: { statusList: ['OPEN'] } }],
    ['severityList with a bad value', 'alarmCount', { severityList: ['HIGH'] }],
    ['severityList in a count pageLink', 'alarmCount', { pageLink: { severityList: ['HIGH'] } }],
    ['statusList as a string', 'alarmCount', { statusList: 'ACTIVE' }],
    ['time window negative', 'alarmCount', { timeWindow: -1 }],
    [
      'time window in a data pageLink',
      'alarmData',
      { entityFilter: DEV, pageLink: { timeWindow: 3600000, startTs: 0 } },
    ],
    ['assignee uuid string', 'alarmCount', { assigneeId: U2 }],
    ['assignee of another type', 'alarmCount', { assigneeId: { entityType: 'DEVICE', id: U2 } }],
    ['assignee object', 'alarmData', { entityFilter: DEV, pageLink: { assigneeId: { entityType: 'USER', id: U2 } } }],
    ['unknown top-level properties', 'entityData', { entityFilter: DEV, comment: 'mine' }],
  ];

  for (const [name, mode, query] of CORPUS) {
    it(`agrees with the runtime validator, for REST and live: ${name}`, () => {
      for (const live of [undefined, false, true]) {
        const runtime = runtimeOk(mode, query, live);
        const schema = schemaOk(mode, query, live);
        assert.equal(
          schema,
          runtime,
          `live ${live}: runtime ${runtime ? 'accepts' : 'rejects'}, ` +
            `schema ${schema ? 'accepts' : 'rejects'}: ${JSON.stringify(validator(mode, live).errors)}`,
        );
      }
    });
  }

  it('CURRENT_DEVICE: refused in a REST entity data query, in other REST queries only with a userValue (or a resolvedValue), accepted live', () => {
    const bare = kf(num({ defaultValue: 1, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }));
    const user = kf(
      num({ defaultValue: 1, userValue: 2, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max' } }),
    );
    const resolved = kf(
      num({
        defaultValue: 1,
        dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'max', resolvedValue: 3 },
      }),
    );
    assert.deepEqual(
      [schemaOk('entityData', bare), schemaOk('entityData', user), schemaOk('entityData', resolved)],
      [false, false, true],
    );
    assert.deepEqual(
      [schemaOk('entityCount', bare), schemaOk('entityCount', user), schemaOk('entityCount', resolved)],
      [false, true, true],
    );
    for (const mode of ['entityData', 'entityCount'] as const) {
      assert.deepEqual(
        [schemaOk(mode, bare, true), schemaOk(mode, user, true), schemaOk(mode, resolved, true)],
        [true, true, true],
        mode,
      );
    }
    // the REST find error points at the source type and says what is allowed
    const v = validator('entityData');
    v(user);
    assert.ok(
      v.errors!.some(
        (e) => e.instancePath === '/keyFilters/0/predicate/value/dynamicValue/sourceType' && e.keyword === 'enum',
      ),
      JSON.stringify(v.errors),
    );
  });

  it('flags a sort key the server refuses at the key', () => {
    const v = validator('entityData');
    assert.equal(
      v({ entityFilter: DEV, pageLink: { sortOrder: { key: { type: 'ENTITY_FIELD', key: 'created(Time)' } } } }),
      false,
    );
    assert.ok(
      v.errors!.some((e) => e.instancePath === '/pageLink/sortOrder/key/key' && e.keyword === 'pattern'),
      JSON.stringify(v.errors),
    );
  });

  it('flags a wrong enum at its place', () => {
    const v = validator('alarmData');
    assert.equal(v({ entityFilter: DEV, pageLink: { severityList: ['CRITICAL', 'HIGH'] } }), false);
    assert.ok(
      v.errors!.some((e) => e.instancePath === '/pageLink/severityList/1' && e.keyword === 'enum'),
      JSON.stringify(v.errors),
    );
  });
});
