import assert from 'node:assert/strict';
import { TbError } from '../../src/errors';
import { flatLatest, historyRows, prepareTelemetryRequest } from '../../src/nodes/tb-telemetry/logic';
import { TELEMETRY_OPERATIONS } from '../../src/nodes/tb-telemetry/settings';
import {
  checkValues,
  deleteParams,
  HistoryPager,
  historyParams,
  latestParams,
  MAX_INTERVALS,
  prepareTimeseries,
  type HistoryRequest,
  type TimeseriesAnswer,
} from '../../src/protocol/telemetry';
import { OptionReader, prepareOperation } from '../../src/settings/options';
import { throwsInput } from './helpers';

const NOW = Date.UTC(2026, 0, 1, 12);
const HOUR = 3600000;
const req = (
  op: 'save' | 'latest' | 'history' | 'delete',
  node: Record<string, unknown>,
  msg: Record<string, unknown> = {},
  payload?: unknown,
) => prepareTelemetryRequest(op, new OptionReader(node, msg), payload, NOW);

describe('query: telemetry', () => {
  describe('operation', () => {
    it("is the node's, or msg.operation when the node says msg; a wrong one names the field and the choices", () => {
      assert.equal(prepareOperation('history', { operation: 'save' }, TELEMETRY_OPERATIONS, 'save'), 'history');
      assert.equal(prepareOperation('', {}, TELEMETRY_OPERATIONS, 'save'), 'save');
      assert.equal(prepareOperation('msg', { operation: 'latest' }, TELEMETRY_OPERATIONS, 'save'), 'latest');
      throwsInput(
        () => prepareOperation('msg', {}, TELEMETRY_OPERATIONS, 'save'),
        'msg.operation',
        'save, latest, history, delete',
        'missing',
      );
      throwsInput(
        () => prepareOperation('msg', { operation: 'Latest' }, TELEMETRY_OPERATIONS, 'save'),
        'msg.operation',
        'did you mean "latest"',
      );
      throwsInput(
        () => prepareOperation('read', {}, TELEMETRY_OPERATIONS, 'save'),
        'operation',
        'one of save, latest, history, delete',
      );
    });
  });

  describe('save: values stamped once', () => {
    it('{key: value} gets the arrival time; {ts, values} keeps its ts; an array mixes both', () => {
      assert.deepEqual(prepareTimeseries({ temperature: 21.5, on: true }, 'msg.payload', NOW), [
        { ts: NOW, values: { temperature: 21.5, on: true } },
      ]);
      assert.deepEqual(prepareTimeseries({ ts: 1000, values: { t: 1 } }, 'msg.payload', NOW), [
        { ts: 1000, values: { t: 1 } },
      ]);
      assert.deepEqual(
        prepareTimeseries([{ ts: 1000, values: { t: 1 } }, { t: 2 }, { values: { t: 3 } }], 'msg.payload', NOW),
        [
          { ts: 1000, values: { t: 1 } },
          { ts: NOW, values: { t: 2 } },
          { ts: NOW, values: { t: 3 } },
        ],
      );
    });

    it('a ts may be ISO text or a Date', () => {
      const iso = '2026-01-01T00:00:00Z';
      assert.equal(prepareTimeseries({ ts: iso, values: { t: 1 } }, 'msg.payload', NOW)[0].ts, Date.parse(iso));
      assert.equal(prepareTimeseries({ ts: new Date(5000), values: { t: 1 } }, 'msg.payload', NOW)[0].ts, 5000);
      throwsInput(
        () => prepareTimeseries({ ts: 'yesterday', values: { t: 1 } }, 'msg.payload', NOW),
        'msg.payload.ts',
        'ms since 1970',
      );
    });

    it('objects and arrays are values (stored as JSON)', () => {
      assert.deepEqual(prepareTimeseries({ cfg: { a: [1, 2] }, list: [1] }, 'msg.payload', NOW)[0].values, {
        cfg: { a: [1, 2] },
        list: [1],
      });
    });

    it('refuses what the server would refuse or store wrongly, naming the key', () => {
      throwsInput(
        () => prepareTimeseries(undefined, 'msg.payload', NOW),
        'msg.payload',
        '{key: value, …}',
        '(missing)',
      );
      throwsInput(() => prepareTimeseries('21', 'msg.payload', NOW), 'msg.payload', '(got "21")');
      throwsInput(() => prepareTimeseries([], 'msg.payload', NOW), 'msg.payload', 'empty array');
      throwsInput(() => prepareTimeseries({}, 'msg.payload', NOW), 'msg.payload', 'empty object');
      throwsInput(() => prepareTimeseries({ t: null }, 'msg.payload', NOW), 'msg.payload.t', 'null');
      throwsInput(() => prepareTimeseries({ t: undefined }, 'msg.payload', NOW), 'msg.payload.t', 'undefined');
      throwsInput(() => prepareTimeseries({ t: NaN }, 'msg.payload', NOW), 'msg.payload.t', 'finite');
      throwsInput(() => prepareTimeseries({ ' ': 1 }, 'msg.payload', NOW), 'msg.payload', 'blank key');
      throwsInput(
        () => prepareTimeseries({ ['k'.repeat(256)]: 1 }, 'msg.payload', NOW),
        'msg.payload',
        '256 characters',
        '255',
      );
      throwsInput(
        () => prepareTimeseries({ ts: 1000, t: 1 }, 'msg.payload', NOW),
        'msg.payload',
        'has a ts but no values',
        'key named "ts"',
      );
      throwsInput(
        () => prepareTimeseries({ ts: 1000, values: { t: 1 }, humidity: 3 }, 'msg.payload', NOW),
        'msg.payload',
        '"humidity"',
        'ignores',
      );
      throwsInput(
        () => prepareTimeseries([{ t: 1 }, { ts: 1, values: { h: null } }], 'msg.payload', NOW),
        'msg.payload[1].values.h',
        'null',
      );
    });

    it('checkValues returns the object as given', () => {
      const v = { a: 1 };
      assert.equal(checkValues(v, 'x', 'an object'), v);
    });

    it('ttl (a duration in the node, seconds in msg.ttl) from the node, else the message; 0 or none = the plain route', () => {
      assert.deepEqual(req('save', { ttl: '' }, {}, { t: 1 }), {
        operation: 'save',
        records: [{ ts: NOW, values: { t: 1 } }],
      });
      assert.equal((req('save', { ttl: '1h' }, {}, { t: 1 }) as { ttl?: number }).ttl, 3600);
      assert.equal((req('save', { ttl: '30d' }, {}, { t: 1 }) as { ttl?: number }).ttl, 2592000);
      assert.equal((req('save', { ttl: '1h' }, { ttl: 60 }, { t: 1 }) as { ttl?: number }).ttl, 3600, 'the node wins');
      // A number alone is ms in the node, as in every duration setting: not whole seconds.
      throwsInput(() => req('save', { ttl: '3600' }, {}, { t: 1 }), 'ttl', 'whole seconds');
      assert.equal((req('save', { ttl: '' }, { ttl: '2h' }, { t: 1 }) as { ttl?: number }).ttl, 7200);
      assert.equal(
        (req('save', { ttl: '' }, { ttl: 60 }, { t: 1 }) as { ttl?: number }).ttl,
        60,
        'left empty: the message',
      );
      assert.equal((req('save', {}, { ttl: 0 }, { t: 1 }) as { ttl?: number }).ttl, undefined);
      throwsInput(() => req('save', {}, { ttl: -1 }, { t: 1 }), 'msg.ttl', 'duration', 'a number alone is seconds');
      throwsInput(() => req('save', {}, { ttl: 'a day' }, { t: 1 }), 'msg.ttl', 'duration');
      throwsInput(() => req('save', {}, { ttl: 1.5 }, { t: 1 }), 'msg.ttl', 'whole seconds');
    });
  });

  describe('latest', () => {
    it('keys: array or comma list, trimmed, empty = all; the node wins over the message, which fills an empty setting', () => {
      assert.deepEqual(req('latest', { keys: 'temperature, humidity ,' }), {
        operation: 'latest',
        keys: ['temperature', 'humidity'],
      });
      assert.deepEqual(req('latest', { keys: '' }), { operation: 'latest', keys: [] });
      assert.deepEqual(req('latest', { keys: 'a' }, { keys: ['b', ' c ', 'b'] }), { operation: 'latest', keys: ['a'] });
      assert.deepEqual(req('latest', { keys: '' }, { keys: ['b', ' c ', 'b'] }), {
        operation: 'latest',
        keys: ['b', 'c'],
      });
      assert.deepEqual(
        req('latest', { keys: '' }, { keys: [] }),
        { operation: 'latest', keys: [] },
        'an empty list in the message: every key',
      );
      throwsInput(() => req('latest', {}, { keys: ['a,b'] }), 'msg.keys[0]', 'comma');
      throwsInput(() => req('latest', {}, { keys: [1] }), 'msg.keys[0]', 'a key name');
      throwsInput(() => req('latest', {}, { keys: 7 }), 'msg.keys', 'array of strings, or a comma-separated text');
    });

    it('asks for native types, and for the keys joined without spaces', () => {
      assert.deepEqual(latestParams({ operation: 'latest', keys: ['a', 'b'] }), {
        useStrictDataTypes: true,
        keys: 'a,b',
      });
      assert.deepEqual(latestParams({ operation: 'latest', keys: [] }), { useStrictDataTypes: true });
    });

    it('flat: key: value with native types and ts per key; a key without a value is null with no ts', () => {
      const answer = {
        temperature: [{ ts: 10, value: 21.5 }],
        on: [{ ts: 11, value: true }],
        cfg: [{ ts: 12, value: { a: 1 } }],
        missing: [{ ts: NOW, value: null }],
      };
      assert.deepEqual(flatLatest(answer), {
        values: { temperature: 21.5, on: true, cfg: { a: 1 }, missing: null },
        ts: { temperature: 10, on: 11, cfg: 12 },
      });
      assert.deepEqual(flatLatest({}), { values: {}, ts: {} });
      assert.throws(
        () => flatLatest([1]),
        (e: unknown) => e instanceof TbError && e.code === 'TB_BAD_RESPONSE',
      );
    });
  });

  describe('history options', () => {
    it('keys are required (older servers answer latest values without them)', () => {
      throwsInput(() => req('history', { last: '24h' }), 'keys', 'at least one key', 'latest values');
      throwsInput(() => req('history', { keys: '', last: '24h' }, { keys: '' }), 'msg.keys', 'at least one key');
    });

    it('range: last (ms or with a unit) ends now; from/to as ms, ISO or Date; to defaults to now', () => {
      const h = req('history', { keys: 't', last: '24h' }) as HistoryRequest;
      assert.deepEqual([h.startTs, h.endTs], [NOW - 24 * HOUR, NOW]);
      assert.equal((req('history', { keys: 't', last: 60000 }) as HistoryRequest).startTs, NOW - 60000);
      const f = req(
        'history',
        { keys: 't' },
        { from: '2026-01-01T00:00:00Z', to: new Date(NOW - HOUR) },
      ) as HistoryRequest;
      assert.deepEqual([f.startTs, f.endTs], [Date.UTC(2026, 0, 1), NOW - HOUR]);
      assert.equal((req('history', { keys: 't', from: String(NOW - 5) }) as HistoryRequest).endTs, NOW);
      assert.equal(
        (req('history', { keys: 't' }, { last: '30s', to: NOW - 1000 }) as HistoryRequest).startTs,
        NOW - 31000,
      );
    });

    it('the range comes whole from one place: the node\'s when it sets one (msg.from with a node "last" is no conflict), else the message\'s', () => {
      const h = req('history', { keys: 't', last: '24h' }, { from: NOW - 10 }) as HistoryRequest;
      assert.deepEqual([h.startTs, h.endTs], [NOW - 24 * HOUR, NOW]);
      const m = req('history', { keys: 't', last: '' }, { from: NOW - 10 }) as HistoryRequest;
      assert.deepEqual([m.startTs, m.endTs], [NOW - 10, NOW]);
    });

    it('range errors name the field', () => {
      throwsInput(() => req('history', { keys: 't' }), 'from', 'needs a range');
      throwsInput(
        () => req('history', { keys: 't' }, { from: NOW - 10, last: '1h' }),
        'msg.from',
        'either from/to, or last',
      );
      throwsInput(() => req('history', { keys: 't' }, { to: NOW }), 'msg.from', 'is missing');
      throwsInput(() => req('history', { keys: 't' }, { from: NOW, to: NOW - 1 }), 'msg.from', 'must be before msg.to');
      throwsInput(() => req('history', { keys: 't' }, { from: 'last week' }), 'msg.from', 'ms since 1970');
      throwsInput(() => req('history', { keys: 't', last: 'two days' }), 'last', 'duration', '2h');
    });

    it('defaults: agg NONE, order ASC, no limit (every point), maxItems 100,000', () => {
      const h = req('history', { keys: 't', last: '1h' }) as HistoryRequest;
      assert.equal(h.agg, 'NONE');
      assert.equal(h.order, 'ASC');
      assert.equal(h.limit, undefined);
      assert.equal(h.maxItems, 100000);
      const l = req(
        'history',
        { keys: 't', last: '1h', limit: '10', order: 'ASC' },
        { order: 'DESC', maxItems: 50 },
      ) as HistoryRequest;
      assert.deepEqual(
        [l.limit, l.order, l.maxItems],
        [10, 'ASC', 50],
        "the node's order wins; maxItems left empty comes from the message",
      );
      throwsInput(
        () => req('history', { keys: 't', last: '1h' }, { order: 'desc' }),
        'msg.order',
        'did you mean "DESC"',
      );
      throwsInput(() => req('history', { keys: 't', last: '1h' }, { limit: 0 }), 'msg.limit', 'at least 1');
    });

    it('an aggregation needs an interval: refused before sending, never raw data in disguise', () => {
      throwsInput(
        () => req('history', { keys: 't', last: '24h', agg: 'AVG' }),
        'interval',
        'agg AVG needs an interval',
        'raw points',
      );
      throwsInput(
        () => req('history', { keys: 't', last: '24h' }, { agg: 'SUM', intervalType: 'MILLISECONDS' }),
        'interval',
        'needs an interval',
      );
      const h = req('history', { keys: 't', last: '24h', agg: 'AVG', interval: '1h' }) as HistoryRequest;
      assert.deepEqual([h.agg, h.interval, h.intervalType], ['AVG', HOUR, undefined]);
      throwsInput(
        () => req('history', { keys: 't', last: '24h', agg: 'MEDIAN', interval: '1h' }),
        'agg',
        'NONE, AVG, MIN, MAX, SUM, COUNT',
      );
    });

    it('more than 700 intervals is refused with the numbers', () => {
      const err = throwsInput(
        () => req('history', { keys: 't', last: '24h', agg: 'AVG' }, { interval: 60000 }),
        'msg.interval',
        '1440 intervals',
        `at most ${MAX_INTERVALS}`,
        'at least 124s for this range',
      );
      assert.match(err.message, /1 min cuts 1 d into/);
      // 700 exactly passes; an interval under 1 s counts as 1 s, as on the server
      assert.equal(
        (req('history', { keys: 't', from: 0, to: 700000, agg: 'MIN', interval: 500 }) as HistoryRequest).interval,
        500,
      );
      throwsInput(
        () => req('history', { keys: 't', from: 0, to: 701000, agg: 'MIN', interval: 500 }),
        'interval',
        '701 intervals',
      );
    });

    it('calendar intervals take a time zone, checked (the server would silently use its own)', () => {
      const h = req('history', {
        keys: 't',
        last: '90d',
        agg: 'COUNT',
        intervalType: 'MONTH',
        timeZone: 'Europe/Berlin',
      }) as HistoryRequest;
      assert.deepEqual([h.intervalType, h.timeZone, h.interval], ['MONTH', 'Europe/Berlin', undefined]);
      throwsInput(
        () => req('history', { keys: 't', last: '90d', agg: 'COUNT', intervalType: 'MONTH', timeZone: 'Mars/Base' }),
        'timeZone',
        'IANA',
      );
      throwsInput(
        () => req('history', { keys: 't', last: '90d', agg: 'COUNT', intervalType: 'YEAR' }),
        'intervalType',
        'MILLISECONDS, WEEK, WEEK_ISO, MONTH, QUARTER',
      );
    });

    it("wire: one page's query (limit only without agg; interval, type and zone with it)", () => {
      const h = req('history', { keys: 't,h', last: '1h' }) as HistoryRequest;
      assert.deepEqual(historyParams(h, { keys: ['t', 'h'], startTs: 1, endTs: 2, limit: 500 }), {
        keys: 't,h',
        startTs: 1,
        endTs: 2,
        agg: 'NONE',
        orderBy: 'ASC',
        useStrictDataTypes: true,
        limit: 500,
      });
      const a = req('history', {
        keys: 't',
        last: '1h',
        agg: 'MAX',
        intervalType: 'WEEK',
        timeZone: 'UTC',
      }) as HistoryRequest;
      assert.deepEqual(historyParams(a, { keys: ['t'], startTs: 1, endTs: 2, limit: 500 }), {
        keys: 't',
        startTs: 1,
        endTs: 2,
        agg: 'MAX',
        orderBy: 'ASC',
        useStrictDataTypes: true,
        interval: 0,
        intervalType: 'WEEK',
        timeZone: 'UTC',
      });
    });
  });

  describe('history paging', () => {
    /**
     * A server: points of each key at the given times, answering `limit` per key in the asked order within [start,
     * end).
     */
    function server(data: Record<string, number[]>, order: 'ASC' | 'DESC') {
      return (page: { keys: string[]; startTs: number; endTs: number; limit: number }): TimeseriesAnswer => {
        const out: TimeseriesAnswer = {};
        for (const k of page.keys) {
          let ts = (data[k] ?? []).filter((t) => t >= page.startTs && t < page.endTs).sort((a, b) => a - b);
          if (order === 'DESC') ts = ts.reverse();
          ts = ts.slice(0, page.limit);
          if (ts.length) out[k] = ts.map((t) => ({ ts: t, value: t / 10 }));
        }
        return out;
      };
    }
    function read(data: Record<string, number[]>, r: Partial<HistoryRequest>, pageSize: number) {
      const h: HistoryRequest = {
        operation: 'history',
        keys: Object.keys(data),
        startTs: 0,
        endTs: 1000,
        agg: 'NONE',
        order: 'ASC',
        maxItems: 100000,
        ...r,
      };
      const pager = new HistoryPager(h, pageSize);
      const answer = server(data, h.order);
      const requests: Array<{ keys: string[]; startTs: number; endTs: number }> = [];
      for (let round = pager.next(); round.length; round = pager.next()) {
        for (const p of round) {
          requests.push({ keys: p.keys, startTs: p.startTs, endTs: p.endTs });
          pager.add(p, answer(p));
        }
      }
      return { pager, requests, series: pager.series() };
    }
    const range = (from: number, to: number, step = 1) =>
      Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => from + i * step);

    it('reads every point of the range, page after page, each next page starting after the last point', () => {
      const { series, requests, pager } = read({ t: range(0, 250) }, {}, 100);
      assert.equal(series.t.length, 250);
      assert.deepEqual(
        series.t.map((p) => p.ts),
        range(0, 250),
      );
      assert.deepEqual(
        requests.map((r) => r.startTs),
        [0, 100, 200],
      );
      assert.equal(pager.truncated, false);
      assert.equal(pager.pages, 3);
    });

    it('exactly a page of points takes one more (empty) request to know it is the end', () => {
      const { series, requests } = read({ t: range(0, 200) }, {}, 100);
      assert.equal(series.t.length, 200);
      assert.equal(requests.length, 3);
    });

    it('keys at the same place share a request; a sparse key stops early', () => {
      const { series, requests } = read({ dense: range(0, 300), sparse: range(0, 300, 10) }, {}, 100);
      assert.equal(series.dense.length, 300);
      assert.equal(series.sparse.length, 30);
      assert.deepEqual(requests[0].keys, ['dense', 'sparse']);
      assert.deepEqual(
        requests.slice(1).map((r) => r.keys),
        [['dense'], ['dense'], ['dense']],
      );
    });

    it('DESC pages backwards from the end (the end is exclusive) and keeps newest first', () => {
      const { series, requests } = read({ t: range(0, 250) }, { order: 'DESC' }, 100);
      assert.deepEqual(
        series.t.map((p) => p.ts),
        range(0, 250).reverse(),
      );
      assert.deepEqual(
        requests.map((r) => r.endTs),
        [1000, 150, 50],
      );
    });

    it('maxItems cuts where every key was read through (no hole), and says so', () => {
      const { series, pager } = read({ a: range(0, 1000), b: range(0, 1000, 2) }, { maxItems: 250 }, 100);
      assert.equal(pager.truncated, true);
      const lastA = series.a[series.a.length - 1].ts;
      const lastB = series.b[series.b.length - 1].ts;
      assert.ok(pager.count <= 250, `${pager.count} points`);
      // every point of both keys up to the cut is there
      assert.deepEqual(
        series.a.map((p) => p.ts),
        range(0, lastA + 1),
      );
      assert.deepEqual(
        series.b.map((p) => p.ts),
        range(0, lastB + 1, 2),
      );
      assert.ok(Math.abs(lastA - lastB) <= 2);
    });

    it('with a limit (or an aggregation) one request is the answer, cut at maxItems', () => {
      const { series, requests, pager } = read({ t: range(0, 250) }, { limit: 50 }, 100);
      assert.equal(requests.length, 1);
      assert.equal(series.t.length, 50);
      assert.equal(pager.truncated, false);
      const agg = read({ t: range(0, 250) }, { agg: 'AVG', interval: 100 }, 100);
      assert.equal(agg.requests.length, 1);
      const cut = read({ t: range(0, 250), u: range(0, 250) }, { limit: 100, maxItems: 150 }, 1000);
      assert.equal(cut.pager.truncated, true);
      assert.equal(cut.pager.count, 150);
    });

    it('points outside the asked range are dropped: a server that repeats a page ends the read instead of looping', () => {
      const h: HistoryRequest = {
        operation: 'history',
        keys: ['t'],
        startTs: 100,
        endTs: 200,
        agg: 'NONE',
        order: 'ASC',
        maxItems: 1000,
      };
      const pager = new HistoryPager(h, 2);
      const [p] = pager.next();
      pager.add(p, {
        t: [
          { ts: 50, value: 1 },
          { ts: 100, value: 2 },
          { ts: 101, value: 3 },
        ],
      });
      const [p2] = pager.next();
      assert.equal(p2.startTs, 102);
      pager.add(p2, {
        t: [
          { ts: 100, value: 2 },
          { ts: 101, value: 3 },
        ],
      });
      assert.deepEqual(pager.next(), []);
      assert.deepEqual(
        pager.series().t.map((x) => x.ts),
        [100, 101],
      );
      assert.throws(
        () => new HistoryPager(h, 2).add(p, 'x'),
        (e: unknown) => e instanceof TbError && e.code === 'TB_BAD_RESPONSE',
      );
    });
  });

  describe('history rows', () => {
    it('merged by ts in the asked order; a key without a point at that ts is absent from the row', () => {
      const series = {
        temperature: [
          { ts: 2, value: 21 },
          { ts: 1, value: 20 },
        ],
        humidity: [
          { ts: 1, value: 40 },
          { ts: 3, value: 41 },
        ],
      };
      assert.deepEqual(historyRows(series, 'ASC'), [
        { ts: 1, temperature: 20, humidity: 40 },
        { ts: 2, temperature: 21 },
        { ts: 3, humidity: 41 },
      ]);
      assert.deepEqual(
        historyRows(series, 'DESC').map((r) => r.ts),
        [3, 2, 1],
      );
    });
  });

  describe('delete', () => {
    it('keys required; a range [from, to) or all; deleteLatest true and rewriteLatest false by default', () => {
      throwsInput(() => req('delete', { all: true }), 'keys', 'at least one key');
      const d = req('delete', { keys: 't', last: '1h' });
      assert.deepEqual(d, {
        operation: 'delete',
        keys: ['t'],
        all: false,
        startTs: NOW - HOUR,
        endTs: NOW,
        deleteLatest: true,
        rewriteLatest: false,
      });
      assert.deepEqual(req('delete', { keys: 't', all: 'true', deleteLatest: false }, { rewriteLatest: true }), {
        operation: 'delete',
        keys: ['t'],
        all: true,
        deleteLatest: false,
        rewriteLatest: true,
      });
      throwsInput(() => req('delete', { keys: 't' }), 'from', 'all: true');
      throwsInput(
        () => req('delete', { keys: 't' }, { all: true, from: 5 }),
        'msg.all',
        'either all: true, or from/to',
      );
      throwsInput(() => req('delete', { keys: 't', all: 'yes' }), 'all', 'true or false');
    });

    it("the node's range wins over msg.all; without a range on the node (all unticked), msg.all is read", () => {
      assert.equal((req('delete', { keys: 't', last: '1h' }, { all: true }) as { all: boolean }).all, false);
      assert.equal((req('delete', { keys: 't', last: '', all: false }, { all: true }) as { all: boolean }).all, true);
    });

    it('wire', () => {
      assert.deepEqual(
        deleteParams({
          operation: 'delete',
          keys: ['a', 'b'],
          all: false,
          startTs: 1,
          endTs: 2,
          deleteLatest: true,
          rewriteLatest: false,
        }),
        {
          keys: 'a,b',
          deleteAllDataForKeys: false,
          deleteLatest: true,
          rewriteLatestIfDeleted: false,
          startTs: 1,
          endTs: 2,
        },
      );
      assert.deepEqual(
        deleteParams({ operation: 'delete', keys: ['a'], all: true, deleteLatest: false, rewriteLatest: true }),
        {
          keys: 'a',
          deleteAllDataForKeys: true,
          deleteLatest: false,
          rewriteLatestIfDeleted: true,
        },
      );
    });
  });
});
