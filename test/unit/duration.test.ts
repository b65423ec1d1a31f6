/**
 * Durations, the same in every node (src/protocol/duration.ts): the one parser and the one formatter, a duration
 * setting read by its declaration, and the migrations that turned older settings (a number of ms or of seconds, a
 * number beside a unit) into durations with their unit.
 */
import assert from 'node:assert/strict';
import { MIGRATIONS as BUILD_REPORT } from '../../src/nodes/tb-build-report/migrations';
import { TB_BUILD_REPORT } from '../../src/nodes/tb-build-report/settings';
import { MIGRATIONS as CONNECTION } from '../../src/nodes/tb-connection/migrations';
import { TB_CONNECTION } from '../../src/nodes/tb-connection/settings';
import { MIGRATIONS as RPC } from '../../src/nodes/tb-rpc/migrations';
import { TB_RPC } from '../../src/nodes/tb-rpc/settings';
import { MIGRATIONS as SUBSCRIBE } from '../../src/nodes/tb-subscribe/migrations';
import { TB_SUBSCRIBE } from '../../src/nodes/tb-subscribe/settings';
import { MIGRATIONS as TELEMETRY } from '../../src/nodes/tb-telemetry/migrations';
import { TB_TELEMETRY } from '../../src/nodes/tb-telemetry/settings';
import { MIGRATIONS as WAIT_UNTIL } from '../../src/nodes/tb-wait-until/migrations';
import { TB_WAIT_UNTIL } from '../../src/nodes/tb-wait-until/settings';
import {
  durationParts,
  durationSetting,
  durationText,
  spanText,
  numberToDuration,
  parseDuration,
} from '../../src/protocol/duration';
import { declareNode, duration } from '../../src/settings/declare';
import { migrate } from '../../src/settings/migrate';
import { readSettings } from '../../src/settings/read';

describe('durations', function () {
  describe('parseDuration', function () {
    it('a number with a unit, in any case, with or without a space; a number alone is ms', function () {
      assert.equal(parseDuration('30s'), 30000);
      assert.equal(parseDuration('15m'), 900000);
      assert.equal(parseDuration('15 min'), 900000);
      assert.equal(parseDuration('2H'), 7200000);
      assert.equal(parseDuration('1.5h'), 5400000);
      assert.equal(parseDuration('7 days'), 604800000);
      assert.equal(parseDuration('2w'), 1209600000);
      assert.equal(parseDuration('250ms'), 250);
      assert.equal(parseDuration(' 10000 '), 10000);
      assert.equal(parseDuration(10000), 10000);
      assert.equal(parseDuration('0'), 0);
    });

    it('a number alone in another unit, for a message property documented so (msg.ttl in seconds)', function () {
      assert.equal(parseDuration(60, 's'), 60000);
      assert.equal(parseDuration('60', 's'), 60000);
      assert.equal(parseDuration('1m', 's'), 60000, 'a unit written wins');
    });

    it('anything else is not a duration', function () {
      for (const v of ['', 'soon', '-5s', '5 fortnights', '1h30m', 'h', -1, NaN, Infinity, null, undefined, {}])
        assert.equal(parseDuration(v), undefined, JSON.stringify(v));
    });
  });

  describe('the formatter', function () {
    it('the largest unit that divides it: what a status says, what a setting saves', function () {
      const ms = [30000, 600000, 7200000, 86400000, 1500, 1209600000];
      assert.deepEqual(ms.map(durationText), ['30 s', '10 min', '2 h', '1 d', '1500 ms', '14 d']);
      assert.deepEqual(ms.map(durationSetting), ['30s', '10m', '2h', '1d', '1500ms', '14d']);
      assert.deepEqual(durationParts(90000), { n: 90, unit: 's' });
      assert.equal(durationSetting(0), '0');
    });

    it('spanText: a measured span rounded, in at most two units', function () {
      const said = [0, 400, 999.6, 10001, 59600, 600002, 754000, 3599999, 5340000, 86399000, 183600000];
      assert.deepEqual(said.map(spanText), [
        '0 ms',
        '400 ms',
        '1 s',
        '10 s',
        '1 min',
        '10 min',
        '12 min 34 s',
        '1 h',
        '1 h 29 min',
        '1 d',
        '2 d 3 h',
      ]);
    });

    it('what it saves reads back as the same duration', function () {
      for (const ms of [1, 999, 1000, 61000, 3600000, 90000000, 604800000])
        assert.equal(parseDuration(durationSetting(ms)), ms);
    });

    it('numberToDuration: a number of a unit becomes the text with its unit; the rest is left alone', function () {
      assert.equal(numberToDuration(10000, 'ms'), '10s');
      assert.equal(numberToDuration('15000', 'ms'), '15s');
      assert.equal(numberToDuration(30, 's'), '30s');
      assert.equal(numberToDuration(300, 's'), '5m');
      assert.equal(numberToDuration(86400, 's'), '1d');
      assert.equal(numberToDuration(0, 's'), '0');
      for (const v of ['', '10s', '{{msg.timeout}}', 'soon', undefined, null])
        assert.equal(numberToDuration(v, 'ms'), v, JSON.stringify(v));
    });
  });

  describe('a duration setting read by its declaration', function () {
    const DECL = declareNode({
      type: 'tb-example',
      inputs: 1,
      outputs: 1,
      version: 1,
      settings: {
        wait: duration('2m', { min: 1000 }),
        window: duration('1h', { min: 0, above: true }),
        every: duration('', { min: 0, optional: true }),
      },
    });

    it('as ms: missing or empty reads the default, an optional one as not set', function () {
      assert.deepEqual(readSettings(DECL, {}).values, { wait: 120000, window: 3600000, every: undefined, version: 1 });
      const { values, problems } = readSettings(DECL, { wait: '', window: '7d', every: '500ms' });
      assert.deepEqual(problems, []);
      assert.deepEqual(values, { wait: 120000, window: 604800000, every: 500, version: 1 });
    });

    it('what is not a duration, or is below its minimum, is a problem naming the setting; the default is read', function () {
      const { values, problems } = readSettings(DECL, { wait: '500ms', window: '0', every: 'hourly' });
      assert.deepEqual(
        problems.map((p) => p.message),
        [
          'wait must be a duration such as 30s, 15m, 2h or 7d (a number alone is ms), at least 1 s (got "500ms")',
          'window must be a duration such as 30s, 15m, 2h or 7d (a number alone is ms), more than 0 (got "0")',
          'every must be a duration such as 30s, 15m, 2h or 7d (a number alone is ms) (got "hourly")',
        ],
      );
      assert.deepEqual(values, { wait: 120000, window: 3600000, every: undefined, version: 1 });
    });
  });

  describe('migrations to durations with their unit', function () {
    it('tb-rpc 2 → 3: the timeout and the expiration of ms get their unit; empty and placeholders stay', function () {
      const m = migrate(TB_RPC, RPC, { timeout: 10000, expiration: '3600000', version: 2 });
      assert.equal(m.timeout, '10s');
      assert.equal(m.expiration, '1h');
      assert.equal(m.version, 3);
      const kept = migrate(TB_RPC, RPC, { timeout: '', expiration: '{{msg.exp}}', version: 2 });
      assert.deepEqual([kept.timeout, kept.expiration], ['', '{{msg.exp}}']);
      // Version 1 without a timeout: empty, msg.timeout else 10 s, as it read then.
      assert.equal(migrate(TB_RPC, RPC, { version: 1 }).timeout, '');
    });

    it('tb-telemetry 2 → 3: the TTL was seconds; Last and Interval were ms', function () {
      const m = migrate(TB_TELEMETRY, TELEMETRY, { ttl: 86400, last: 3600000, interval: '60000', version: 2 });
      assert.deepEqual([m.ttl, m.last, m.interval], ['1d', '1h', '1m']);
      assert.deepEqual(readSettings(TB_TELEMETRY, m).problems, []);
    });

    it('tb-wait-until 2 → 3: a timeout of ms gets its unit; 0 (no limit) stays 0', function () {
      assert.equal(migrate(TB_WAIT_UNTIL, WAIT_UNTIL, { timeout: 90000, version: 2 }).timeout, '90s');
      assert.equal(migrate(TB_WAIT_UNTIL, WAIT_UNTIL, { timeout: 0, version: 2 }).timeout, '0');
      assert.equal(migrate(TB_WAIT_UNTIL, WAIT_UNTIL, { timeout: '30m', version: 2 }).timeout, '30m');
    });

    it('tb-subscribe 2 → 3: a number and a unit become one duration; an interval of 0 ms is none', function () {
      const m = migrate(TB_SUBSCRIBE, SUBSCRIBE, {
        tsWindow: 2,
        tsWindowUnit: 'days',
        historyRange: '90',
        historyRangeUnit: 'minutes',
        historyInterval: 3600000,
        version: 2,
      });
      assert.deepEqual(
        [m.tsWindow, m.historyRange, m.historyInterval, m.tsWindowUnit, m.historyRangeUnit],
        ['2d', '90m', '1h', '', ''],
      );
      const { values, problems } = readSettings(TB_SUBSCRIBE, m);
      assert.deepEqual(problems, []);
      assert.deepEqual([values.tsWindow, values.historyRange, values.historyInterval], [172800000, 5400000, 3600000]);
      // Version 1 without them: the defaults of then, 1 hour and 24 hours, every stored value.
      const old = migrate(TB_SUBSCRIBE, SUBSCRIBE, { version: 1 });
      assert.deepEqual([old.tsWindow, old.historyRange, old.historyInterval], ['1h', '24h', '']);
      // A window that was never one is left for the node to report.
      assert.equal(migrate(TB_SUBSCRIBE, SUBSCRIBE, { tsWindow: -1, tsWindowUnit: 'hours', version: 2 }).tsWindow, -1);
      assert.equal(
        migrate(TB_SUBSCRIBE, SUBSCRIBE, { tsWindow: 3, tsWindowUnit: 'fortnights', version: 2 }).tsWindow,
        '3 fortnights',
      );
      assert.equal(migrate(TB_SUBSCRIBE, SUBSCRIBE, { historyRange: 24, version: 2 }).historyRange, '1d');
    });

    it('tb-build-report 2 → 3: the last N units become one duration; the maximum wait was seconds', function () {
      const m = migrate(TB_BUILD_REPORT, BUILD_REPORT, { last: 7, lastUnit: 'days', maxWait: 120, version: 2 });
      assert.deepEqual([m.last, m.maxWait, m.lastUnit], ['7d', '2m', '']);
      const { values, problems } = readSettings(TB_BUILD_REPORT, m);
      assert.deepEqual(problems, []);
      assert.deepEqual([values.last, values.maxWait], [604800000, 120000]);
    });

    it('tb-connection 2 → 3: the timeouts and the waiting between retries were seconds', function () {
      const m = migrate(TB_CONNECTION, CONNECTION, { timeout: 10, retryBudget: 30, reportTimeout: 300, version: 2 });
      assert.deepEqual([m.timeout, m.retryBudget, m.reportTimeout], ['10s', '30s', '5m']);
      const { values, problems } = readSettings(TB_CONNECTION, m);
      assert.deepEqual(problems, []);
      assert.deepEqual([values.timeout, values.retryBudget, values.reportTimeout], [10000, 30000, 300000]);
      // 0.5 s was allowed too.
      assert.equal(migrate(TB_CONNECTION, CONNECTION, { timeout: 0.5, version: 2 }).timeout, '500ms');
    });
  });
});
