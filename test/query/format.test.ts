import assert from 'node:assert/strict';
import { TbInputError } from '../../src/errors';
import {
  applyFlatChanges,
  flattenAlarm,
  flattenEntity,
  formatAlarms,
  formatEntities,
  fromKeysV1,
  fromKeysV2,
  pageInfo,
  parseValue,
} from '../../src/protocol/format';
import type { ResultFormat } from '../../src/protocol/format';
import type { AlarmData, EntityData } from '../../src/protocol/types';
import { U1, U2 } from './helpers';

const DEV = { entityType: 'DEVICE', id: U1 };

describe('query/format', () => {
  describe('parseValue', () => {
    const table: Array<[string, number, unknown]> = [
      ['', 0, null], // no value stored
      ['', 1767225600000, ''], // a stored empty string
      ['23', 1, 23],
      ['23.0', 1, 23],
      ['23.5', 1, 23.5],
      ['-1.5', 1, -1.5],
      ['0', 1, 0],
      ['0.25', 1, 0.25],
      ['-0.5', 1, -0.5],
      ['42', 1, 42],
      ['1e+20', 1, 1e20],
      ['1.0E20', 1, 1e20],
      ['2.5E-3', 1, 0.0025],
      ['1767225600000', 1, 1767225600000],
      ['9007199254740991', 1, 9007199254740991], // max safe integer stays a number
      ['12345678901234567890', 1, '12345678901234567890'], // not exact as a double: kept
      ['9007199254740993', 1, '9007199254740993'],
      ['1.2345678901234567E19', 1, 1.2345678901234567e19], // a double stays a number
      // EntityDataAdapterTest: the server keeps this text on purpose; a double would lose digits, so it stays text
      ['899140091.29080723322', 1, '899140091.29080723322'],
      ['-899140091.29080723322', 1, '-899140091.29080723322'],
      ['0.30000000000000001', 1, '0.30000000000000001'],
      ['1.00000000000000000001', 1, '1.00000000000000000001'],
      ['899140091.2908072', 1, 899140091.2908072], // what a double holds: a number
      ['23.500000000000000', 1, 23.5], // trailing zeros lose nothing
      ['0.000000000000000', 1, 0],
      ['1767225600123.4', 1, 1767225600123.4],
      ['1.7672256001234E12', 1, 1767225600123.4], // Java's form of the same double
      ['2.00000000000000000E5', 1, 200000],
      ['1.23456789012345678E-7', 1, '1.23456789012345678E-7'],
      ['007', 1, '007'],
      ['00', 1, '00'],
      ['-007', 1, '-007'],
      ['01.5', 1, '01.5'],
      [' 1', 1, ' 1'],
      ['1 ', 1, '1 '],
      ['+1', 1, '+1'],
      ['.5', 1, '.5'],
      ['5.', 1, '5.'],
      ['0x1A', 1, '0x1A'],
      ['1e', 1, '1e'],
      ['-', 1, '-'],
      ['1.2.0', 1, '1.2.0'],
      ['NaN', 1, 'NaN'],
      ['Infinity', 1, 'Infinity'],
      ['-Infinity', 1, '-Infinity'],
      ['1e999', 1, '1e999'],
      ['true', 1, true],
      ['false', 1, false],
      ['True', 1, 'True'],
      ['TRUE', 1, 'TRUE'],
      ['null', 1, 'null'],
      ['{"a":1}', 1, '{"a":1}'],
      ['Thermo A', 1, 'Thermo A'],
    ];
    for (const [value, ts, expected] of table) {
      it(`${JSON.stringify(value)} (ts ${ts}) -> ${typeof expected === 'string' ? JSON.stringify(expected) : String(expected)}`, () => {
        assert.deepEqual(parseValue({ ts, value }), expected);
      });
    }

    it('"23" and "23.0" give the same number (REST vs WS formatting)', () => {
      assert.equal(parseValue({ ts: 1, value: '23' }), parseValue({ ts: 1, value: '23.0' }));
    });

    it('gives null for a missing TsValue and keeps a non-string value', () => {
      assert.equal(parseValue(null), null);
      assert.equal(parseValue(undefined), null);
      assert.equal(parseValue({ ts: 1, value: 5 as unknown as string }), 5);
    });
  });

  describe('flattenEntity', () => {
    it('builds {id, entityType, fields, attributes, time series, ts} in that order', () => {
      const ed: EntityData = {
        entityId: DEV,
        latest: {
          TIME_SERIES: { temperature: { ts: 1767225590000, value: '26.5' } },
          SERVER_ATTRIBUTE: {
            model: { ts: 1767225500000, value: 'TH-1' },
            active: { ts: 1767225400000, value: 'true' },
          },
          ENTITY_FIELD: {
            name: { ts: 1767225600123, value: 'Thermo A' },
            label: { ts: 1767225600123, value: '' },
            createdTime: { ts: 1767225600123, value: '1767225000000' },
            type: { ts: 1767225600123, value: '42' },
          },
        },
        timeseries: {},
        aggLatest: {},
      };
      const flat = flattenEntity(ed);
      assert.deepEqual(flat, {
        id: U1,
        entityType: 'DEVICE',
        name: 'Thermo A',
        label: '',
        createdTime: 1767225000000,
        type: '42', // entity fields stay strings
        model: 'TH-1',
        active: true,
        temperature: 26.5,
        ts: { model: 1767225500000, active: 1767225400000, temperature: 1767225590000 },
      });
      assert.deepEqual(Object.keys(flat), [
        'id',
        'entityType',
        'name',
        'label',
        'createdTime',
        'type',
        'model',
        'active',
        'temperature',
        'ts',
      ]);
    });

    it('gives null and ts 0 for a missing value', () => {
      const flat = flattenEntity({
        entityId: DEV,
        latest: { SERVER_ATTRIBUTE: { model: { ts: 0, value: '' } } },
        timeseries: {},
      });
      assert.deepEqual(flat, { id: U1, entityType: 'DEVICE', model: null, ts: { model: 0 } });
    });

    it('lets time series overwrite an attribute of the same name', () => {
      const flat = flattenEntity({
        entityId: DEV,
        latest: {
          TIME_SERIES: { temperature: { ts: 20, value: '21' } },
          CLIENT_ATTRIBUTE: { temperature: { ts: 10, value: '99' } },
        },
        timeseries: {},
      });
      assert.equal(flat.temperature, 21);
      assert.equal(flat.ts.temperature, 20);
    });

    it('merges attribute scopes in the order ATTRIBUTE, SERVER, SHARED, CLIENT', () => {
      const flat = flattenEntity({
        entityId: DEV,
        latest: {
          CLIENT_ATTRIBUTE: { fw: { ts: 4, value: 'client' } },
          SHARED_ATTRIBUTE: { fw: { ts: 3, value: 'shared' } },
          SERVER_ATTRIBUTE: { fw: { ts: 2, value: 'server' } },
          ATTRIBUTE: { fw: { ts: 1, value: 'any' } },
        },
        timeseries: {},
      });
      assert.equal(flat.fw, 'client');
      assert.equal(flat.ts.fw, 4);
    });

    it('never lets a missing value hide a present one', () => {
      const flat = flattenEntity({
        entityId: DEV,
        latest: {
          SERVER_ATTRIBUTE: { temperature: { ts: 10, value: '19' } },
          TIME_SERIES: { temperature: { ts: 0, value: '' } },
        },
        timeseries: {},
      });
      assert.equal(flat.temperature, 19);
      assert.equal(flat.ts.temperature, 10);
    });

    it('never overwrites an entity field with an attribute or time series', () => {
      const flat = flattenEntity({
        entityId: DEV,
        latest: {
          ENTITY_FIELD: { name: { ts: 5, value: 'Thermo A' } },
          SERVER_ATTRIBUTE: { name: { ts: 6, value: 'attr name' } },
          TIME_SERIES: { name: { ts: 7, value: 'ts name' } },
        },
        timeseries: {},
      });
      assert.equal(flat.name, 'Thermo A');
      assert.deepEqual(flat.ts, {});
    });

    it('protects id, entityType and ts', () => {
      const flat = flattenEntity({
        entityId: DEV,
        latest: {
          ENTITY_FIELD: { entityType: { ts: 5, value: 'ASSET' }, id: { ts: 5, value: 'x' }, ts: { ts: 5, value: '1' } },
          SERVER_ATTRIBUTE: { id: { ts: 6, value: 'attr' }, ts: { ts: 6, value: '2' } },
          TIME_SERIES: { entityType: { ts: 7, value: 'TS' }, ts: { ts: 7, value: '3' }, t: { ts: 7, value: '1' } },
        },
        timeseries: {},
      });
      assert.deepEqual(flat, { id: U1, entityType: 'DEVICE', t: 1, ts: { t: 7 } });
    });

    it('keeps a "__proto__" key as an own property without touching the prototype', () => {
      const latest = JSON.parse('{"TIME_SERIES":{"__proto__":{"ts":1,"value":"5"}}}');
      const flat = flattenEntity({ entityId: DEV, latest, timeseries: {} });
      assert.equal(Object.getPrototypeOf(flat), Object.prototype);
      assert.ok(Object.prototype.hasOwnProperty.call(flat, '__proto__'));
      assert.equal(Object.getOwnPropertyDescriptor(flat, '__proto__')?.value, 5);
      assert.equal(Object.getOwnPropertyDescriptor(flat.ts, '__proto__')?.value, 1);
    });

    it('leaves out aggLatest and timeseries, and copes with latest: null (WS ts updates)', () => {
      const flat = flattenEntity({
        entityId: DEV,
        latest: null,
        timeseries: { temperature: [{ ts: 1, value: '1' }] },
        aggLatest: { '0': { current: { ts: 1, value: '2' } } },
      });
      assert.deepEqual(flat, { id: U1, entityType: 'DEVICE', ts: {} });
    });

    it('gives createdTime null when empty', () => {
      const flat = flattenEntity({
        entityId: DEV,
        latest: { ENTITY_FIELD: { createdTime: { ts: 1, value: '' } } },
        timeseries: {},
      });
      assert.equal(flat.createdTime, null);
    });
  });

  describe('flattenAlarm', () => {
    const alarm: AlarmData = {
      id: { entityType: 'ALARM', id: U2 },
      createdTime: 1767225000000,
      tenantId: { entityType: 'TENANT', id: '0c2f4e50-e000-11f0-9d7e-8b1f2c3d4e5f' },
      customerId: null,
      type: 'High Temperature',
      originator: { entityType: 'DEVICE', id: U1 },
      severity: 'CRITICAL',
      acknowledged: false,
      cleared: false,
      assigneeId: { entityType: 'USER', id: '11111111-2222-3333-4444-555555555555' },
      startTs: 1767225000000,
      endTs: 1767225300000,
      ackTs: 0,
      clearTs: 0,
      assignTs: 1767225100000,
      details: { data: 'x' },
      propagate: false,
      propagateToOwner: true,
      propagateToTenant: false,
      propagateRelationTypes: ['Contains'],
      name: 'High Temperature',
      status: 'ACTIVE_UNACK',
      originatorName: 'Thermo A',
      originatorLabel: 'Label A',
      originatorDisplayName: 'Label A',
      assignee: {
        id: { entityType: 'USER', id: '11111111-2222-3333-4444-555555555555' },
        firstName: 'Ann',
        lastName: 'Lee',
        email: 'ann@example.com',
      },
      entityId: { entityType: 'ASSET', id: '99999999-2222-3333-4444-555555555555' },
      latest: {
        ENTITY_FIELD: { name: { ts: 5, value: 'Building 1' }, type: { ts: 5, value: 'building' } },
        TIME_SERIES: { temperature: { ts: 1767225590000, value: '26.5' }, severity: { ts: 3, value: 'low' } },
        SERVER_ATTRIBUTE: { floor: { ts: 0, value: '' } },
      },
    };

    it('builds the documented flat alarm', () => {
      const flat = flattenAlarm(alarm);
      assert.deepEqual(flat, {
        id: U2,
        tenantId: '0c2f4e50-e000-11f0-9d7e-8b1f2c3d4e5f',
        customerId: null,
        type: 'High Temperature',
        severity: 'CRITICAL',
        status: 'ACTIVE_UNACK',
        acknowledged: false,
        cleared: false,
        createdTime: 1767225000000,
        startTs: 1767225000000,
        endTs: 1767225300000,
        ackTs: 0,
        clearTs: 0,
        assignTs: 1767225100000,
        originator: { id: U1, entityType: 'DEVICE' },
        originatorName: 'Thermo A',
        originatorLabel: 'Label A',
        originatorDisplayName: 'Label A',
        assigneeId: '11111111-2222-3333-4444-555555555555',
        assignee: {
          id: '11111111-2222-3333-4444-555555555555',
          firstName: 'Ann',
          lastName: 'Lee',
          email: 'ann@example.com',
        },
        details: { data: 'x' },
        propagate: false,
        propagateToOwner: true,
        propagateToTenant: false,
        propagateRelationTypes: ['Contains'],
        entity: { id: '99999999-2222-3333-4444-555555555555', entityType: 'ASSET' },
        name: 'Building 1', // entity field (the alarm's own `name` is not part of the flat alarm)
        floor: null,
        temperature: 26.5,
        ts: { floor: 0, temperature: 1767225590000 },
      });
      assert.equal(Object.keys(flat).at(-1), 'ts');
    });

    it('never overwrites an alarm field with an entity field or latest value', () => {
      const flat = flattenAlarm(alarm);
      assert.equal(flat.type, 'High Temperature'); // not the entity field "building"
      assert.equal(flat.severity, 'CRITICAL'); // not the time series "low"
      assert.equal(flat.ts.severity, undefined);
    });

    it('carries the tenant, customer and assignee ids as UUIDs (null when there is none)', () => {
      const flat = flattenAlarm({ ...alarm, customerId: { entityType: 'CUSTOMER', id: U1 } });
      assert.deepEqual(
        [flat.tenantId, flat.customerId, flat.assigneeId],
        ['0c2f4e50-e000-11f0-9d7e-8b1f2c3d4e5f', U1, '11111111-2222-3333-4444-555555555555'],
      );
      assert.deepEqual(Object.keys(flat).slice(0, 3), ['id', 'tenantId', 'customerId']);
      // an entity field or latest value of the same name never replaces them
      const named = flattenAlarm({
        ...alarm,
        latest: { TIME_SERIES: { tenantId: { ts: 1, value: 'x' }, assigneeId: { ts: 1, value: 'y' } } },
      });
      assert.equal(named.tenantId, '0c2f4e50-e000-11f0-9d7e-8b1f2c3d4e5f');
      assert.equal(named.assigneeId, '11111111-2222-3333-4444-555555555555');
    });

    it('gives assignee null when unassigned, and copes with latest null', () => {
      const flat = flattenAlarm({ ...alarm, assignee: null, assigneeId: null, latest: null });
      assert.equal(flat.assignee, null);
      assert.equal(flat.assigneeId, null);
      assert.deepEqual(flat.ts, {});
      assert.equal(flat.temperature, undefined);
    });

    it('does not modify the input', () => {
      const copy = JSON.parse(JSON.stringify(alarm));
      flattenAlarm(alarm);
      assert.deepEqual(alarm, copy);
    });
  });

  describe('formatEntities / formatAlarms', () => {
    const items: EntityData[] = [
      { entityId: DEV, latest: { TIME_SERIES: { t: { ts: 1, value: '1' } } }, timeseries: {}, aggLatest: {} },
      { entityId: { entityType: 'DEVICE', id: U2 }, latest: {}, timeseries: {}, aggLatest: {} },
    ];

    it('raw returns the items untouched (same array)', () => {
      assert.equal(formatEntities(items, 'raw'), items);
      const alarms = [] as AlarmData[];
      assert.equal(formatAlarms(alarms, 'raw'), alarms);
    });

    it('flat maps every item', () => {
      assert.deepEqual(formatEntities(items, 'flat'), [
        { id: U1, entityType: 'DEVICE', t: 1, ts: { t: 1 } },
        { id: U2, entityType: 'DEVICE', ts: {} },
      ]);
      assert.equal(formatAlarms([], 'flat').length, 0);
    });

    it('rejects an unknown format', () => {
      assert.throws(
        () => formatEntities(items, 'table' as ResultFormat),
        (e: unknown) => e instanceof TbInputError && /format must be one of flat, raw/.test(e.message),
      );
      assert.throws(() => formatAlarms([], 'csv' as ResultFormat), TbInputError);
    });
  });

  describe('pageInfo', () => {
    it('combines the page asked for with the totals', () => {
      assert.deepEqual(
        pageInfo({ data: [1, 2], totalPages: 3, totalElements: 5, hasNext: true }, { page: 1, pageSize: 2 }),
        {
          page: 1,
          pageSize: 2,
          totalPages: 3,
          totalElements: 5,
          hasNext: true,
        },
      );
      assert.deepEqual(
        pageInfo({ data: [], totalPages: 0, totalElements: 0, hasNext: false }, { page: 0, pageSize: 100 }),
        {
          page: 0,
          pageSize: 100,
          totalPages: 0,
          totalElements: 0,
          hasNext: false,
        },
      );
    });
  });

  describe('key discovery', () => {
    it('fromKeysV2: names only, sorted, deduplicated, empty scopes left out', () => {
      assert.deepEqual(
        fromKeysV2({
          entityTypes: ['DEVICE', 'ASSET', 'DEVICE'],
          timeseries: [
            { key: 'temperature', sample: { ts: 1, value: 23.5 } },
            { key: 'humidity' },
            { key: 'humidity' },
          ],
          attributes: {
            SHARED_SCOPE: [{ key: 'active', sample: { ts: 1, value: true } }],
            CLIENT_SCOPE: [{ key: 'fw' }, { key: 'battery' }],
            SERVER_SCOPE: [],
          },
        }),
        {
          entityTypes: ['ASSET', 'DEVICE'],
          timeseries: ['humidity', 'temperature'],
          attributes: { CLIENT_SCOPE: ['battery', 'fw'], SHARED_SCOPE: ['active'] },
        },
      );
    });

    it('fromKeysV2: absent parts give empty lists', () => {
      assert.deepEqual(fromKeysV2({ entityTypes: [] }), { entityTypes: [], timeseries: [], attributes: {} });
      assert.deepEqual(fromKeysV2({ entityTypes: [], timeseries: [], attributes: {} }), {
        entityTypes: [],
        timeseries: [],
        attributes: {},
      });
    });

    it('fromKeysV1: merges one call per scope plus a time-series call', () => {
      const out = fromKeysV1(
        [
          {
            scope: 'SERVER_SCOPE',
            resp: { entityTypes: ['DEVICE'], timeseries: [], attribute: ['model', 'active', 'model'] },
          },
          { scope: 'SHARED_SCOPE', resp: { entityTypes: ['DEVICE', 'ASSET'], timeseries: [], attribute: ['target'] } },
          { scope: 'CLIENT_SCOPE', resp: { entityTypes: ['DEVICE'], timeseries: [], attribute: [] } },
        ],
        { entityTypes: ['DEVICE'], timeseries: ['temperature', 'humidity'], attribute: [] },
      );
      assert.deepEqual(out, {
        entityTypes: ['ASSET', 'DEVICE'],
        timeseries: ['humidity', 'temperature'],
        attributes: { SERVER_SCOPE: ['active', 'model'], SHARED_SCOPE: ['target'] },
      });
    });

    it('fromKeysV1: without a separate time-series answer, unions the per-call time series', () => {
      const out = fromKeysV1([
        { scope: null, resp: { entityTypes: ['DEVICE'], timeseries: ['b', 'a'], attribute: [] } },
        { scope: 'SERVER_SCOPE', resp: { entityTypes: ['DEVICE'], timeseries: ['a', 'c'], attribute: ['x'] } },
      ]);
      assert.deepEqual(out, {
        entityTypes: ['DEVICE'],
        timeseries: ['a', 'b', 'c'],
        attributes: { SERVER_SCOPE: ['x'] },
      });
    });

    it('fromKeysV1: attribute keys of a call without scope go to ANY', () => {
      const out = fromKeysV1([
        { scope: null, resp: { entityTypes: ['DEVICE'], timeseries: [], attribute: ['z', 'y'] } },
      ]);
      assert.deepEqual(out, { entityTypes: ['DEVICE'], timeseries: [], attributes: { ANY: ['y', 'z'] } });
    });

    it('fromKeysV1: nothing matched', () => {
      assert.deepEqual(fromKeysV1([]), { entityTypes: [], timeseries: [], attributes: {} });
    });
  });
});

describe('applyFlatChanges (the live update path: one row per entity, changed in place)', () => {
  const tv = (value: string, ts = 5) => ({ ts, value });
  it('equals flattenEntity of the merged entity, for every kind of change', () => {
    const base = {
      entityId: { entityType: 'DEVICE', id: 'e1' },
      latest: {
        ENTITY_FIELD: { name: tv('Dev'), temperature: tv('entity field wins') },
        SERVER_ATTRIBUTE: { mode: tv('eco'), shared: tv('1'), gone: tv('x') },
        SHARED_ATTRIBUTE: { shared: tv('2') },
        TIME_SERIES: { t: tv('21.5'), mode: tv('', 0), hum: tv('40') },
      },
      timeseries: {},
      aggLatest: {},
    } as never;
    const changes: Array<[string, string, { ts: number; value: string }]> = [
      ['TIME_SERIES', 't', tv('22.0', 9)],
      ['SERVER_ATTRIBUTE', 'mode', tv('boost', 9)],
      ['TIME_SERIES', 'mode', tv('manual', 9)],
      ['SHARED_ATTRIBUTE', 'shared', tv('3', 9)],
      ['TIME_SERIES', 'hum', tv('', 0)],
      ['TIME_SERIES', 'temperature', tv('99', 9)],
      ['SERVER_ATTRIBUTE', 'newKey', tv('true', 9)],
      ['SERVER_ATTRIBUTE', 'gone', tv('', 0)],
    ];
    let entity = base as { latest: Record<string, Record<string, unknown>> };
    const flat = flattenEntity(entity as never);
    for (const [type, key, value] of changes) {
      entity = { ...entity, latest: { ...entity.latest, [type]: { ...(entity.latest[type] ?? {}), [key]: value } } };
      applyFlatChanges(flat, entity.latest as never, [key]);
      assert.deepEqual(flat, flattenEntity(entity as never), `after ${type}.${key}`);
    }
    assert.equal(flat.temperature, 'entity field wins');
    assert.equal(flat.mode, 'manual');
  });
});
