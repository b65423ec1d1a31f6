/**
 * The shapes for Dashboard 2, pure: chart points (values as a chart plots them, oldest first, series named after the
 * entity when there are several), alarm rows (the columns a person reads and the alarm's id), and the names a list of
 * entities brings.
 */
import assert from 'node:assert/strict';
import { prepareAlarmId } from '../../src/protocol/alarm-actions';
import {
  alarmRow,
  alarmRows,
  chartValue,
  historyPoints,
  latestPoints,
  rowPoints,
  seriesName,
  singleSeries,
} from '../../src/protocol/dashboard';
import { entityNameOf, prepareTargets, targetRules } from '../../src/protocol/targets';
import type { AlarmInfo } from '../../src/protocol/types';

const ALARM: AlarmInfo = {
  id: { entityType: 'ALARM', id: '0b7a4f10-e71b-11f0-9d7e-8b1f2c3d4e5f' },
  createdTime: 1767225600000,
  tenantId: { entityType: 'TENANT', id: '1b7a4f10-e71b-11f0-9d7e-8b1f2c3d4e5f' },
  customerId: null,
  type: 'High Temperature',
  originator: { entityType: 'DEVICE', id: '2b7a4f10-e71b-11f0-9d7e-8b1f2c3d4e5f' },
  severity: 'CRITICAL',
  acknowledged: false,
  cleared: false,
  status: 'ACTIVE_UNACK',
  name: 'High Temperature',
  assigneeId: null,
  assignee: null,
  startTs: 1767225600000,
  endTs: 1767225600000,
  ackTs: 0,
  clearTs: 0,
  assignTs: 0,
  details: null,
  propagate: false,
  propagateToOwner: false,
  propagateToTenant: false,
  propagateRelationTypes: [],
  originatorName: 'Thermo A-101',
  originatorLabel: null,
  originatorDisplayName: 'Thermo A-101',
};
const USER = { entityType: 'USER' as const, id: '3b7a4f10-e71b-11f0-9d7e-8b1f2c3d4e5f' };

describe('shapes for Dashboard 2', function () {
  describe('chart points', function () {
    it('a value as a chart plots it: plain decimal text is a number; other text, booleans, numbers and objects are kept', function () {
      assert.equal(chartValue('23.5'), 23.5);
      assert.equal(chartValue('-1e+3'), -1000);
      assert.equal(chartValue(21), 21);
      for (const v of ['n/a', '007', ' 5', '+5', '0x10', 'NaN', '12345678901234567890', '', true, null])
        assert.equal(chartValue(v), v, JSON.stringify(v));
      const o = { a: 1 };
      assert.equal(chartValue(o), o);
    });

    it('the series: the key alone, or "<entity name> · <key>"', function () {
      assert.equal(seriesName('temperature'), 'temperature');
      assert.equal(seriesName('temperature', 'Thermo A-101'), 'Thermo A-101 · temperature');
    });

    it("history: every point of every key, oldest first whatever the order of the answer; points of one time keep the keys' order", function () {
      const points = historyPoints({
        t: [
          { ts: 3000, value: 3 },
          { ts: 1000, value: '1.5' },
        ],
        h: [
          { ts: 1000, value: 'n/a' },
          { ts: 2000, value: 20 },
        ],
      });
      assert.deepEqual(points, [
        { series: 't', key: 't', ts: 1000, value: 1.5 },
        { series: 'h', key: 'h', ts: 1000, value: 'n/a' },
        { series: 'h', key: 'h', ts: 2000, value: 20 },
        { series: 't', key: 't', ts: 3000, value: 3 },
      ]);
      assert.deepEqual(
        historyPoints({ t: [{ ts: 5, value: 1 }] }, 'Thermo A-101').map((p) => p.series),
        ['Thermo A-101 · t'],
      );
      assert.deepEqual(historyPoints({}), []);
    });

    it('latest: one point per key with a value, oldest first; a key the server answers with null has none', function () {
      assert.deepEqual(
        latestPoints({
          b: [{ ts: 2000, value: 5 }],
          a: [{ ts: 1000, value: '45' }],
          none: [{ ts: 9999, value: null }],
          empty: [],
        }),
        [
          { series: 'a', key: 'a', ts: 1000, value: 45 },
          { series: 'b', key: 'b', ts: 2000, value: 5 },
        ],
      );
    });

    it('a flat row: a point per value with a time (an entity field and a value never stored have none), oldest first', function () {
      const row = {
        id: 'x',
        entityType: 'DEVICE',
        name: 'Thermo A-101',
        temperature: 21.5,
        humidity: null,
        mode: 'eco',
        ts: { temperature: 2000, humidity: 0, mode: 1000 },
      };
      assert.deepEqual(rowPoints(row, 'Thermo A-101'), [
        { series: 'Thermo A-101 · mode', key: 'mode', ts: 1000, value: 'eco' },
        { series: 'Thermo A-101 · temperature', key: 'temperature', ts: 2000, value: 21.5 },
      ]);
      assert.deepEqual(
        rowPoints(row, undefined, ['temperature', 'name']).map((p) => p.series),
        ['temperature'],
      );
    });

    it('one series, or none when several (or no point)', function () {
      const p = (series: string) => ({ series, key: 'k', ts: 1, value: 1 });
      assert.equal(singleSeries([p('a'), p('a')]), 'a');
      assert.equal(singleSeries([p('a'), p('b')]), undefined);
      assert.equal(singleSeries([]), undefined);
    });
  });

  describe('alarm rows', function () {
    it('the columns a person reads, in order, then the id; times in ms, null when not yet; no entityType, nothing nested', function () {
      const row = alarmRow(ALARM);
      assert.deepEqual(row, {
        originator: 'Thermo A-101',
        type: 'High Temperature',
        severity: 'CRITICAL',
        status: 'ACTIVE_UNACK',
        created: 1767225600000,
        acknowledged: null,
        cleared: null,
        assignee: null,
        id: ALARM.id.id,
      });
      assert.ok(Object.values(row).every((v) => v === null || typeof v !== 'object'));
      const done = alarmRow({ ...ALARM, ackTs: 1767229200000, clearTs: 1767232800000, status: 'CLEARED_ACK' });
      assert.deepEqual([done.acknowledged, done.cleared, done.status], [1767229200000, 1767232800000, 'CLEARED_ACK']);
    });

    it('the assignee: first and last name, else what there is of them, else the e-mail', function () {
      const assignee = (firstName: string | null, lastName: string | null, email: string | null) =>
        alarmRow({ ...ALARM, assigneeId: USER, assignee: { id: USER, firstName, lastName, email } }).assignee;
      assert.equal(assignee('Terry', 'Tech', 'tech@thingsboard.org'), 'Terry Tech');
      assert.equal(assignee('Terry', null, 'tech@thingsboard.org'), 'Terry');
      assert.equal(assignee(null, ' ', 'tech@thingsboard.org'), 'tech@thingsboard.org');
      assert.equal(assignee(null, null, null), null);
    });

    it('a row is an alarm tb-alarm-action reads as it is (its id)', function () {
      const [row] = alarmRows([ALARM]);
      assert.equal(prepareAlarmId(row, 'msg.payload'), ALARM.id.id);
    });
  });

  describe('the names a list of entities brings', function () {
    it("a flat row's name, a raw row's name field, an alarm's originator name; none for an id", function () {
      assert.equal(entityNameOf({ id: 'x', entityType: 'DEVICE', name: 'Thermo A-101' }), 'Thermo A-101');
      assert.equal(entityNameOf({ entityId: {}, latest: { ENTITY_FIELD: { name: { ts: 0, value: 'B' } } } }), 'B');
      assert.equal(entityNameOf({ originator: {}, originatorName: 'C' }), 'C');
      for (const v of ['2b7a4f10-e71b-11f0-9d7e-8b1f2c3d4e5f', { id: 'x', entityType: 'DEVICE' }, { name: '' }, null])
        assert.equal(entityNameOf(v), undefined, JSON.stringify(v));
    });

    it('prepareTargets keeps them beside the entities of a list (none when no item brings one)', function () {
      const rules = targetRules('tb-telemetry', 'DEVICE');
      const a = '2b7a4f10-e71b-11f0-9d7e-8b1f2c3d4e5f';
      const b = '4b7a4f10-e71b-11f0-9d7e-8b1f2c3d4e5f';
      const t = prepareTargets([{ id: a, entityType: 'DEVICE', name: 'A' }, b], 'msg.entity', rules);
      assert.deepEqual(t.names, ['A', undefined]);
      assert.equal(prepareTargets([a, b], 'msg.entity', rules).names, undefined);
      assert.equal(prepareTargets({ id: a, entityType: 'DEVICE', name: 'A' }, 'msg.entity', rules).names, undefined);
    });
  });
});
