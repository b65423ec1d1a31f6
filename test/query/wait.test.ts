/**
 * The pure part of tb-wait-until (src/query/wait.ts): the settings, the server's numeric-text rule, equality, the
 * lists of `in`, every operator, the timeout, the live queries, the alarm readings and the shape of msg.waited.
 */
import assert from 'node:assert/strict';
import { TbConfigError, TbInputError } from '../../src/errors';
import {
  alarmMet,
  alarmReading,
  alarmWatchQuery,
  compileCondition,
  DEFAULT_MAX_WAITS,
  durationText,
  isNumericText,
  latestActive,
  latestValue,
  listMet,
  listValue,
  numberOf,
  prepareTimeout,
  prepareWaitSettings,
  sameValue,
  valueWatchQuery,
  waitedOf,
  type EntityOutcome,
} from '../../src/nodes/tb-wait-until/logic';
import type { AlarmData, EntityData } from '../../src/protocol/types';

const E = { entityType: 'DEVICE', id: '784f394c-42b6-435a-983c-b7beff2784f9' };

describe('query/wait (tb-wait-until, pure)', function () {
  describe('settings', function () {
    it('defaults: value, TIME_SERIES, eq, acknowledged, all, checkCurrent on, 1000 waits', function () {
      assert.deepEqual(prepareWaitSettings({ key: ' temperature ' }), {
        waitFor: 'value',
        keyType: 'TIME_SERIES',
        key: 'temperature',
        operator: 'eq',
        alarmState: 'acknowledged',
        alarmType: '',
        listMode: 'all',
        checkCurrent: true,
        maxWaits: DEFAULT_MAX_WAITS,
      });
      assert.equal(prepareWaitSettings({ key: 'k', checkCurrent: false }).checkCurrent, false);
      assert.equal(prepareWaitSettings({ key: 'k', checkCurrent: 'false' }).checkCurrent, false);
      assert.equal(prepareWaitSettings({ key: 'k', maxWaits: '5' }).maxWaits, 5);
      assert.equal(prepareWaitSettings({ waitFor: 'alarm', alarmType: ' Overheat ' }).alarmType, 'Overheat');
    });

    it('refuses, naming the field and the allowed values', function () {
      const bad: Array<[Record<string, unknown>, RegExp]> = [
        [
          { key: 'k', keyType: 'LATEST' },
          /^keyType must be one of TIME_SERIES, SERVER_ATTRIBUTE, SHARED_ATTRIBUTE, CLIENT_ATTRIBUTE, ENTITY_FIELD \(got "LATEST"\)$/,
        ],
        [{ key: 'k', keyType: 'time_series' }, /did you mean "TIME_SERIES"/],
        [{ key: 'k', operator: '>' }, /^operator must be one of eq, neq, lt, lte, gt, gte, in, nin, changes, jsonata/],
        [{ key: 'k', waitFor: 'event' }, /^waitFor must be one of value, alarm/],
        [{ key: 'k', alarmState: 'closed' }, /^alarmState must be one of acknowledged, cleared, either/],
        [{ key: 'k', listMode: 'some' }, /^listMode must be one of all, any/],
        [{ key: 'k', maxWaits: '0' }, /^maxWaits must be a whole number of at least 1/],
        [{ key: 'k', maxWaits: 'many' }, /^maxWaits/],
        [{ key: ' ' }, /^key must name the time series to wait for/],
        [{ keyType: 'ENTITY_FIELD' }, /^key must name the entity field/],
      ];
      for (const [c, re] of bad) {
        assert.throws(
          () => prepareWaitSettings(c),
          (e: unknown) => e instanceof TbConfigError && re.test(e.message),
          JSON.stringify(c),
        );
      }
      assert.doesNotThrow(() => prepareWaitSettings({ waitFor: 'alarm' }), 'an alarm wait needs no key');
    });
  });

  describe('numbers: the server’s numeric-text rule (NumberUtils.isParsable)', function () {
    it('digits, one optional ".", a leading "-"', function () {
      for (const s of ['21', '-1', '21.5', '.5', '-0.25', '007']) assert.equal(isNumericText(s), true, s);
      for (const s of ['', '-', '1.', '+1', '1e3', ' 1', '1 ', '1.2.3', 'NaN', 'Infinity', '0x1f', 'n/a'])
        assert.equal(isNumericText(s), false, s);
      assert.equal(numberOf('007'), 7);
      assert.equal(numberOf(21.5), 21.5);
      assert.equal(numberOf(NaN), undefined);
      assert.equal(numberOf(true), undefined);
      assert.equal(numberOf('1e3'), undefined);
    });

    it('equality: numeric text is its number, "true" is true, objects by content', function () {
      assert.ok(sameValue('21', 21));
      assert.ok(sameValue('21.0', 21));
      assert.ok(sameValue(true, 'true'));
      assert.ok(sameValue({ a: 1, b: [2] }, '{"b":[2],"a":1}'));
      assert.ok(sameValue('on', 'on'));
      assert.ok(!sameValue('on', 'On'));
      assert.ok(!sameValue('1', true));
      assert.ok(!sameValue(null, null), 'no value equals nothing');
      assert.ok(!sameValue('{"a":1}', '{a:1}'), 'text that is not JSON stays text');
    });

    it('lists for in / not in: arrays, or text split as the server splits an IN filter', function () {
      assert.deepEqual(listValue('idle, off ,boost', 'value'), ['idle', 'off', 'boost']);
      assert.deepEqual(listValue("'a, b','c'", 'value'), ["'a", "b'", "'c'"], 'a comma inside quotes still splits');
      assert.deepEqual(listValue('"a","b"', 'value'), ['a', 'b'], 'the same quotes on every item are stripped');
      assert.deepEqual(listValue('"a",b', 'value'), ['"a"', 'b'], 'mixed: kept as split');
      assert.deepEqual(listValue([1, 'x'], 'value'), [1, 'x']);
      assert.deepEqual(listValue(3, 'value'), [3]);
      assert.throws(() => listValue('', 'msg.states'), /msg\.states is an empty list/);
      assert.throws(() => listValue({}, 'msg.states'), /msg\.states must be a list for "in" \/ "not in"/);
    });
  });

  describe('conditions', function () {
    const cond = (op: Parameters<typeof compileCondition>[0], value: unknown) =>
      compileCondition(op, { value, field: 'value' });
    it('every operator', function () {
      const table: Array<[Parameters<typeof compileCondition>[0], unknown, unknown[], unknown[]]> = [
        ['eq', 21, [21, '21', '21.0', 21.0], [20, 'x', null, undefined]],
        ['eq', 'on', ['on'], ['ON', 1]],
        ['eq', true, [true, 'true'], [false, 1, 'yes']],
        ['eq', { mode: 'eco' }, ['{"mode":"eco"}', { mode: 'eco' }], ['{"mode":"off"}']],
        ['neq', '20', [21, 'x', true], [20, '20', null]],
        ['lt', '10', [9.9, '-1', 0], [10, 11, 'n/a', true, null]],
        ['lte', 10, [10, '10.0'], [10.01]],
        ['gt', '25', [25.5, '26'], [25, 'warm']],
        ['gte', 25, [25, 30], [24.99]],
        ['in', 'idle, off', ['idle', 'off'], ['on', null]],
        ['in', [1, 2], ['1', 2], [3]],
        ['nin', ['on', 'boost'], ['eco', 1], ['on', null]],
      ];
      for (const [op, v, yes, no] of table) {
        const c = cond(op, v);
        for (const x of yes)
          assert.equal(c.test(x, undefined), true, `${JSON.stringify(x)} ${op} ${JSON.stringify(v)}`);
        for (const x of no)
          assert.equal(c.test(x, undefined), false, `not ${JSON.stringify(x)} ${op} ${JSON.stringify(v)}`);
      }
    });

    it('changes: any value other than the one before (the first value counts)', function () {
      const c = compileCondition('changes', undefined);
      assert.equal(c.test(21, 20), true);
      assert.equal(c.test('21', 21), false, 'the same value again (as text) is no change');
      assert.equal(c.test(21, undefined), true);
      assert.equal(c.test(null, 20), false);
    });

    it('a comparison that cannot apply is refused, naming where the value came from', function () {
      const bad: Array<[Parameters<typeof compileCondition>[0], unknown, RegExp]> = [
        ['gt', 'warm', /^msg\.target must be a number, or a text that is one such as "21", for ">" .*\(got "warm"\)$/],
        ['lte', true, /for "≤"/],
        ['lt', '1e3', /must be a number/],
        ['eq', undefined, /^msg\.target is missing: "=" needs a value to compare with$/],
        ['eq', '', /^msg\.target is empty/],
        ['in', [], /empty list/],
      ];
      for (const [op, value, re] of bad) {
        assert.throws(
          () => compileCondition(op, { value, field: 'msg.target' }),
          (e: unknown) => e instanceof TbInputError && e.field === 'msg.target' && re.test(e.message),
          `${op} ${JSON.stringify(value)}`,
        );
      }
    });
  });

  describe('timeout', function () {
    it('the setting wins, else msg.timeout, else 30 s; a number is ms; 0 = no limit', function () {
      assert.equal(prepareTimeout('90s', 5), 90000);
      assert.equal(prepareTimeout('10m', undefined), 600000);
      assert.equal(prepareTimeout('2h', undefined), 7200000);
      assert.equal(prepareTimeout('', '200ms'), 200);
      assert.equal(prepareTimeout(undefined, 1500), 1500);
      assert.equal(prepareTimeout(' ', undefined), 30000);
      assert.equal(prepareTimeout('0', undefined), 0);
      assert.equal(prepareTimeout('', 0), 0);
      assert.throws(
        () => prepareTimeout('soon', undefined),
        (e: unknown) =>
          e instanceof TbInputError &&
          e.field === 'timeout' &&
          /timeout must be a duration .*or 0 for no limit \(got "soon"\)/.test(e.message),
      );
      assert.throws(() => prepareTimeout('', -5), /msg\.timeout must be a duration/);
      assert.throws(() => prepareTimeout('', { s: 1 }), /msg\.timeout/);
    });

    it('in words', function () {
      assert.deepEqual([0, 30000, 600000, 7200000, 1500].map(durationText), [
        'no limit',
        '30 s',
        '10 min',
        '2 h',
        '1500 ms',
      ]);
    });
  });

  describe('what is watched', function () {
    it('one key of one entity; an entity field on a dynamic page', function () {
      assert.deepEqual(valueWatchQuery(E, 'SHARED_ATTRIBUTE', 'targetTemperature'), {
        entityFilter: { type: 'singleEntity', singleEntity: E },
        entityFields: [],
        latestValues: [{ type: 'SHARED_ATTRIBUTE', key: 'targetTemperature' }],
        pageLink: { page: 0, pageSize: 1 },
      });
      const f = valueWatchQuery(E, 'ENTITY_FIELD', 'label');
      assert.deepEqual(f.entityFields, [{ type: 'ENTITY_FIELD', key: 'label' }]);
      assert.deepEqual(f.latestValues, []);
      assert.equal(f.pageLink.dynamic, true);
    });

    it('the alarms of one entity (of one type), every status, newest first', function () {
      const q = alarmWatchQuery(E, 'Overheat');
      assert.deepEqual(q.pageLink.typeList, ['Overheat']);
      assert.equal(q.pageLink.statusList, undefined);
      assert.deepEqual(q.pageLink.sortOrder, { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' });
      assert.ok(Array.isArray(q.alarmFields) && q.alarmFields.length > 0);
      assert.equal(alarmWatchQuery(E, undefined).pageLink.typeList, undefined);
    });

    it('latest values typed from the text the WebSocket sends; a deleted key is no value', function () {
      const ed = {
        entityId: E,
        latest: {
          TIME_SERIES: { temperature: { ts: 5, value: '21.5' }, gone: { ts: 0, value: '' } },
          SERVER_ATTRIBUTE: { active: { ts: 3, value: 'true' } },
        },
        timeseries: null,
      } as unknown as EntityData;
      assert.deepEqual(latestValue(ed, 'TIME_SERIES', 'temperature'), { value: 21.5, ts: 5 });
      assert.deepEqual(latestValue(ed, 'SERVER_ATTRIBUTE', 'active'), { value: true, ts: 3 });
      assert.equal(latestValue(ed, 'TIME_SERIES', 'gone'), undefined);
      assert.equal(latestValue(ed, 'SHARED_ATTRIBUTE', 'active'), undefined);
      assert.equal(latestValue(undefined, 'TIME_SERIES', 'temperature'), undefined);
    });
  });

  describe('alarms', function () {
    const alarm = (p: Partial<AlarmData>): AlarmData =>
      ({
        id: { entityType: 'ALARM', id: 'a1' },
        createdTime: 100,
        originator: E,
        type: 'Overheat',
        severity: 'MAJOR',
        acknowledged: false,
        cleared: false,
        status: 'ACTIVE_UNACK',
        ackTs: 0,
        clearTs: 0,
        ...p,
      }) as AlarmData;

    it('the states waited for', function () {
      assert.equal(alarmMet({ acknowledged: true, cleared: false }, 'acknowledged'), true);
      assert.equal(alarmMet({ acknowledged: true, cleared: false }, 'cleared'), false);
      assert.equal(alarmMet({ acknowledged: false, cleared: true }, 'either'), true);
      assert.equal(alarmMet({ acknowledged: false, cleared: false }, 'either'), false);
    });

    it('the latest alarm that is not cleared', function () {
      const a = alarm({ id: { entityType: 'ALARM', id: 'old' } as AlarmData['id'], createdTime: 1 });
      const b = alarm({ id: { entityType: 'ALARM', id: 'new' } as AlarmData['id'], createdTime: 3 });
      const c = alarm({ id: { entityType: 'ALARM', id: 'cleared' } as AlarmData['id'], createdTime: 5, cleared: true });
      assert.equal(latestActive([a, c, b])?.id.id, 'new');
      assert.equal(latestActive([c]), undefined);
    });

    it('value = status, ts = when it reached the state (else its last change), alarm = flat', function () {
      const acked = alarm({ acknowledged: true, ackTs: 200, status: 'ACTIVE_ACK' });
      assert.deepEqual((({ value, ts }) => ({ value, ts }))(alarmReading(acked, 'acknowledged')), {
        value: 'ACTIVE_ACK',
        ts: 200,
      });
      assert.equal(alarmReading(acked, 'cleared').ts, 200, 'not cleared: its last change');
      const both = alarm({ acknowledged: true, ackTs: 300, cleared: true, clearTs: 250, status: 'CLEARED_ACK' });
      assert.equal(alarmReading(both, 'either').ts, 250);
      assert.equal(alarmReading(alarm({}), 'either').ts, 100);
      const flat = alarmReading(acked, 'acknowledged').alarm;
      assert.equal(flat.id, 'a1');
      assert.deepEqual(flat.originator, E);
    });
  });

  describe('msg.waited', function () {
    const o = (met: boolean, value: unknown, ts: number | null): EntityOutcome => ({ entity: E, met, value, ts });
    it('one entity: { met, value, ts, ms, entity } (+ alarm)', function () {
      assert.deepEqual(waitedOf([o(true, 21, 5)], false, true, 12, false), {
        met: true,
        value: 21,
        ts: 5,
        ms: 12,
        entity: E,
      });
      assert.deepEqual(Object.keys(waitedOf([o(false, null, null)], false, false, 30000, true)), [
        'met',
        'value',
        'ts',
        'ms',
        'entity',
        'alarm',
      ]);
      assert.equal(waitedOf([o(false, null, null)], false, false, 30000, true).alarm, null);
    });

    it('a list: { met, ms, entities: [{ entity, met, value, ts }] } in order', function () {
      const w = waitedOf([o(true, 1, 1), o(false, 2, 2)], true, true, 7, false);
      assert.deepEqual(w, {
        met: true,
        ms: 7,
        entities: [
          { entity: E, met: true, value: 1, ts: 1 },
          { entity: E, met: false, value: 2, ts: 2 },
        ],
      });
    });

    it('all / any', function () {
      assert.equal(listMet('all', [o(true, 1, 1), o(false, 1, 1)]), false);
      assert.equal(listMet('any', [o(true, 1, 1), o(false, 1, 1)]), true);
      assert.equal(listMet('all', [o(true, 1, 1)]), true);
    });
  });
});
