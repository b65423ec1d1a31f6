/**
 * tb-telemetry in the real Node-RED runtime against the simulator's §13 endpoints over loopback: save (every
 * payload shape, stamped once, ttl), latest (flat and raw), history (every point page after page, limit, order,
 * maxItems, aggregation), delete (end-exclusive range, all), every target shape, message-over-node options,
 * refusals before sending (nothing sent), both error body shapes, bulk order, concurrency and partial failure,
 * retry safety (a save stored before the connection was lost: exactly one point), and a save seen by tb-subscribe.
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import tbTelemetry from '../../src/nodes/tb-telemetry/index';
import { Collector, coreNode, inject, key, statuses } from '../support/runtime';
import { InFlight, useTelemetryTests, type Rec } from './device-support';

// The core change node moves an entity query's output into msg.entity (its module's type does not matter to the
// helper).
const NODES = [
  tbConnection,
  tbTelemetry,
  tbSubscribe,
  tbEntityQuery,
  coreNode('function/15-change.js') as typeof tbConnection,
];
const NOW = BASE_TIME + HOUR;
const T = '/api/plugins/telemetry';

function tel(id: string, props: Rec = {}): Rec {
  return { id, type: 'tb-telemetry', connection: 'c1', wires: [['out']], ...props };
}

describe('tb-telemetry (runtime + simulator)', function () {
  const { sim, load, results, dev, probe, last, sent } = useTelemetryTests(NODES, {
    settings: { tbConnectionHistoryPageSize: 10 },
    probeName: 'Probe',
    probeType: 'default',
  });

  describe('save', () => {
    it('{key: value}: stamped when the message arrives, written once; the output is what was written, the rest of the message kept', async () => {
      await load([tel('t')]);
      const p = probe();
      const before = Date.now();
      const out = await results.ok('t', {
        entity: { entityType: 'DEVICE', id: p.id },
        payload: { temperature: 21.5, on: true, mode: 'eco' },
        chatId: 7,
      });
      const written = out.payload as Array<{ ts: number; values: Rec }>;
      assert.equal(written.length, 1);
      assert.ok(written[0].ts >= before && written[0].ts <= Date.now(), 'stamped by the node');
      assert.deepEqual(written[0].values, { temperature: 21.5, on: true, mode: 'eco' });
      assert.equal(out.chatId, 7);
      assert.deepEqual(sim.data.latestOf(p.id, 'temperature'), { ts: written[0].ts, type: 'DOUBLE', value: 21.5 });
      assert.equal(sim.data.latestOf(p.id, 'on')?.value, true);
      assert.equal(sim.countRequests(`${T}/DEVICE/${p.id}/timeseries/ANY`, 'POST'), 1);
      assert.deepEqual(last('t'), { fill: 'green', shape: 'dot', text: key('saved') });
    });

    it("{ts, values} and a list of records keep their ts; ttl (seconds) takes the ttl route; the node's ttl wins, an empty one reads msg.ttl", async () => {
      await load([tel('t', { ttl: '3600' }), tel('e', { ttl: '' })]);
      const p = probe();
      let out = await results.ok('t', { entity: p.id, payload: { ts: BASE_TIME - 5, values: { t: 1 } } });
      assert.deepEqual(out.payload, [{ ts: BASE_TIME - 5, values: { t: 1 } }]);
      out = await results.ok('t', {
        entity: p.id,
        ttl: 60,
        payload: [
          { ts: BASE_TIME - 4, values: { t: 2 } },
          { ts: '2025-12-31T23:59:59.997Z', values: { t: 3 } },
        ],
      });
      assert.deepEqual(
        (out.payload as Rec[]).map((r) => r.ts),
        [BASE_TIME - 4, BASE_TIME - 3],
      );
      assert.deepEqual(
        sim.data.history(p.id, 't').map((x) => [x.ts, x.value]),
        [
          [BASE_TIME - 5, 1],
          [BASE_TIME - 4, 2],
          [BASE_TIME - 3, 3],
        ],
      );
      await results.ok('e', { entity: p.id, ttl: 60, payload: { ts: BASE_TIME - 2, values: { t: 4 } } });
      assert.deepEqual(
        sim.telemetry.saves(p.id).map((s) => s.ttl),
        [3600, 3600, 60],
      );
    });

    it("values keep their JSON types; numeric-looking strings are the server's to cast (documented trap)", async () => {
      await load([tel('t')]);
      const p = probe();
      await results.ok('t', { entity: p.id, payload: { cfg: { a: [1, 2] }, serial: '007', count: 21 } });
      assert.equal(sim.data.latestOf(p.id, 'cfg')?.type, 'JSON');
      assert.deepEqual(
        [sim.data.latestOf(p.id, 'serial')?.type, sim.data.latestOf(p.id, 'serial')?.value],
        ['LONG', 7],
      );
      assert.equal(sim.data.latestOf(p.id, 'count')?.type, 'LONG');
    });

    it('refused before sending, naming the field: null, empty, ts without values, extra keys beside values, not an object', async () => {
      await load([tel('t')]);
      const p = probe();
      const cases: Array<[unknown, RegExp]> = [
        [{ temperature: null }, /msg\.payload\.temperature is null/],
        [{}, /msg\.payload is an empty object/],
        [[], /msg\.payload is an empty array/],
        [{ ts: 5, temperature: 1 }, /has a ts but no values/],
        [{ ts: 5, values: { t: 1 }, unit: 'C' }, /"unit"/],
        ['21', /msg\.payload must be \{key: value/],
        [undefined, /msg\.payload must be .*\(missing\)/],
      ];
      for (const [payload, re] of cases) await results.fails('t', { entity: p.id, payload }, 'TB_INVALID_INPUT', re);
      assert.equal(sent(), 0, 'nothing was sent');
      assert.deepEqual(last('t'), { fill: 'red', shape: 'ring', text: key('invalidInput') });
      // the node stays ready
      await results.ok('t', { entity: p.id, payload: { t: 1 } });
    });

    it('a retried save never writes a second point: the connection lost after the server stored it', async () => {
      await load([tel('t')]);
      const p = probe();
      sim.faults.add({ path: `${T}/DEVICE/${p.id}/timeseries`, dropConnection: 'after' });
      const out = await results.ok('t', { entity: p.id, payload: { temperature: 30 } });
      const ts = (out.payload as Array<{ ts: number }>)[0].ts;
      assert.equal(sim.countRequests(`${T}/DEVICE/${p.id}/timeseries`, 'POST'), 2, 'sent again after the lost answer');
      assert.deepEqual(
        sim.data.history(p.id, 'temperature').map((x) => [x.ts, x.value]),
        [[ts, 30]],
        'exactly one point',
      );
    });

    it('a retried save after a 429 writes the same point', async () => {
      await load([tel('t')]);
      const p = probe();
      sim.faults.add({ path: `${T}/DEVICE/${p.id}/timeseries`, status: 429, times: 2 });
      const out = await results.ok('t', { entity: p.id, payload: { temperature: 31 } });
      assert.equal(sim.countRequests(`${T}/DEVICE/${p.id}/timeseries`, 'POST'), 3);
      assert.deepEqual(
        sim.data.history(p.id, 'temperature').map((x) => x.ts),
        [(out.payload as Array<{ ts: number }>)[0].ts],
      );
      assert.ok(statuses('t').some((s) => s.fill === 'yellow' && s.text === key('retrying')));
    });

    it('a save is seen by tb-subscribe (the write is pushed to live subscriptions)', async () => {
      const p = probe();
      const query = {
        entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: p.id } },
        entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
        latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
      };
      await load([
        tel('t'),
        {
          id: 'sub',
          type: 'tb-subscribe',
          connection: 'c1',
          kind: 'entityData',
          queryType: 'json',
          query: JSON.stringify(query),
          format: 'flat',
          wires: [['live']],
        },
        { id: 'live', type: 'helper', z: 't', x: 500, y: 300, wires: [] },
      ]);
      const live = new Collector('live');
      await live.until((m) => m.event === 'snapshot', 8000, true);
      await results.ok('t', { entity: p.id, payload: { temperature: 42.5 } });
      const u = await live.until((m) => m.event === 'update');
      assert.equal(u.topic, p.id);
      assert.equal((u.payload as Rec).temperature, 42.5);
    });
  });

  describe('latest', () => {
    it('flat: native types, msg.ts per key; a key without a value is null and has no ts; keys trimmed', async () => {
      await load([tel('t', { operation: 'latest', keys: 'temperature , humidity, nope' })]);
      const a102 = dev('Thermo A-102');
      const out = await results.ok('t', { topic: a102.id });
      assert.deepEqual(out.payload, { temperature: 23, humidity: 45, nope: null });
      assert.deepEqual(Object.keys(out.ts as Rec).sort(), ['humidity', 'temperature']);
      assert.equal((out.ts as Rec).temperature, BASE_TIME);
      const q = sim.requests.entries(1)[0] as { query: string };
      assert.match(q.query, /useStrictDataTypes=true/);
      assert.match(q.query, /keys=temperature%2Chumidity%2Cnope|keys=temperature,humidity,nope/);
      assert.deepEqual(last('t'), { fill: 'green', shape: 'dot', text: key('values') });
    });

    it('statuses count in words: "1 value"; history "1 row", "no rows", raw "no points"', async () => {
      await load([
        tel('t', { operation: 'latest', keys: 'temperature' }),
        tel('h', { operation: 'history', keys: 'temperature' }),
        tel('r', { operation: 'history', keys: 'temperature', format: 'raw' }),
      ]);
      const a102 = dev('Thermo A-102');
      await results.ok('t', { topic: a102.id });
      assert.deepEqual(last('t'), { fill: 'green', shape: 'dot', text: key('oneValue') });
      await results.ok('t', { topic: a102.id, keys: 'nope' });
      assert.deepEqual(
        last('t'),
        { fill: 'green', shape: 'dot', text: key('oneValue') },
        'a key without a value is read as null',
      );
      await results.ok('h', { topic: a102.id, from: BASE_TIME, to: BASE_TIME + 1 });
      assert.deepEqual(last('h'), { fill: 'green', shape: 'dot', text: key('oneRow') });
      await results.ok('h', { topic: a102.id, from: 1000, to: 2000 });
      assert.deepEqual(last('h'), { fill: 'green', shape: 'dot', text: key('noRows') });
      await results.ok('r', { topic: a102.id, from: 1000, to: 2000 });
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('noPoints') });
    });

    it("keys left empty read msg.keys (empty = every key), fixed keys win over it; raw is the server's answer", async () => {
      await load([
        tel('t', { operation: 'latest', keys: '' }),
        tel('r', { operation: 'latest', format: 'raw' }),
        tel('f', { operation: 'latest', keys: 'temperature' }),
      ]);
      const b102 = dev('Thermo B-102');
      const all = await results.ok('t', { entity: b102.id, keys: [] });
      assert.deepEqual(
        all.payload,
        { temperature: 'n/a', humidity: '45' },
        "every key, as stored (this device's seed data are strings)",
      );
      assert.deepEqual(
        (await results.ok('f', { entity: b102.id, keys: [] })).payload,
        { temperature: 'n/a' },
        "the node's keys",
      );
      const raw = await results.ok('r', { entity: b102.id, keys: 'temperature' });
      assert.deepEqual(raw.payload, { temperature: [{ ts: BASE_TIME, value: 'n/a' }] });
    });

    it('every target shape: flat and raw entity-query items, a REST entity, an alarm (its originator), msg.topic, a fixed entity', async () => {
      const a101 = dev('Thermo A-101');
      await load([
        tel('t', { operation: 'latest', keys: 'temperature' }),
        tel('fixed', {
          operation: 'latest',
          keys: 'temperature',
          targetType: 'json',
          target: JSON.stringify({ entityType: 'DEVICE', id: a101.id }),
        }),
        tel('viaMsg', { operation: 'latest', keys: 'temperature', targetType: 'msg', target: 'payload.device' }),
        tel('asset', { operation: 'latest', keys: 'area', targetEntityType: 'ASSET' }),
      ]);
      const want = { temperature: 21.5 };
      for (const entity of [
        { id: a101.id, entityType: 'DEVICE', name: 'Thermo A-101', ts: {} },
        { entityId: { entityType: 'DEVICE', id: a101.id }, latest: {} },
        { id: { entityType: 'DEVICE', id: a101.id }, name: 'Thermo A-101' },
        {
          id: 'f3b1c2d4-0000-4000-8000-000000000001',
          type: 'High Temperature',
          originator: { id: a101.id, entityType: 'DEVICE' },
        },
        a101.id,
      ]) {
        assert.deepEqual((await results.ok('t', { entity })).payload, want, JSON.stringify(entity));
      }
      assert.deepEqual((await results.ok('t', { topic: a101.id })).payload, want);
      assert.deepEqual((await results.ok('fixed', {})).payload, want);
      assert.deepEqual(
        (await results.ok('viaMsg', { payload: { device: { entityType: 'DEVICE', id: a101.id } } })).payload,
        want,
      );
      const alpha = sim.data.mustFindByName('ASSET', 'Building Alpha');
      assert.deepEqual(
        await results.ok('asset', { topic: alpha.id }).then((m) => m.payload),
        { area: null },
        "a bare UUID is the node's type (an asset): area is an attribute, not a time series",
      );
    });

    it('no entity, a bad entity, an entity type without data, a bad fixed entity: refused, nothing sent', async () => {
      await load([
        tel('t', { operation: 'latest' }),
        tel('bad', { operation: 'latest', targetType: 'json', target: '{"entityType":"DEVICE","id":"x"}' }),
      ]);
      await results.fails(
        't',
        {},
        'TB_INVALID_INPUT',
        /Set the query node's Output to msg\.entity, or send the entity/,
      );
      await results.fails('t', { topic: 'temperature' }, 'TB_INVALID_INPUT', /msg\.topic is not an entity id/);
      await results.fails(
        't',
        { entity: { entityType: 'DASHBOARD', id: dev('Thermo A-101').id } },
        'TB_INVALID_INPUT',
        /DASHBOARD: ThingsBoard keeps attributes and time series only for/,
      );
      await results.fails('t', { entity: [dev('Thermo A-101').id, 'nope'] }, 'TB_INVALID_INPUT', /msg\.entity\[1\]/);
      await results.fails('bad', {}, 'TB_INVALID_INPUT', /target\.id must be the entity's UUID/);
      assert.equal(sent(), 0);
      assert.ok(
        statuses('bad').some((s) => s.fill === 'red' && s.shape === 'dot'),
        'the bad setting shows at deploy',
      );
    });
  });

  describe('history', () => {
    const A101_FROM = BASE_TIME - 24 * HOUR;
    it('without a limit: every point in the range, page after page, merged by ts ascending', async () => {
      await load([
        tel('t', {
          operation: 'history',
          keys: 'temperature,humidity',
          from: String(A101_FROM),
          to: String(BASE_TIME + 1),
        }),
      ]);
      const a202 = dev('Thermo A-202'); // humidity missing: a key without points is left out of the rows
      const out = await results.ok('t', { entity: a202.id });
      const rows = out.payload as Rec[];
      assert.equal(rows.length, 25, '25 hourly points (the server pages at 10 in this test)');
      assert.deepEqual(
        rows.map((r) => r.ts),
        Array.from({ length: 25 }, (_, i) => A101_FROM + i * HOUR),
      );
      assert.ok(rows.every((r) => typeof r.temperature === 'number' && !('humidity' in r)));
      assert.equal(sim.countRequests(`${T}/DEVICE/${a202.id}/values/timeseries`, 'GET'), 3, 'pages of 10: 10 + 10 + 5');
      assert.deepEqual(last('t'), { fill: 'green', shape: 'dot', text: key('rows') });
      const q = sim.requests.entries(3).map((e) => (e as { query: string }).query);
      assert.ok(
        q.every((x) => /orderBy=ASC/.test(x) && /limit=10/.test(x)),
        q.join(' | '),
      );
    });

    it("two keys: rows by ts, a key without a point at a ts absent from that row; raw keeps the server's shape, pages merged", async () => {
      const p = probe();
      sim.data.setTelemetry(p.id, { t: 1, h: 10 }, 1000);
      sim.data.setTelemetry(p.id, { t: 2 }, 2000);
      sim.data.setTelemetry(p.id, { h: 30 }, 3000);
      await load([
        tel('t', { operation: 'history', keys: 't,h', from: '0', to: '10000' }),
        tel('r', { operation: 'history', keys: 't,h', from: '0', to: '10000', format: 'raw' }),
      ]);
      assert.deepEqual((await results.ok('t', { entity: p.id })).payload, [
        { ts: 1000, t: 1, h: 10 },
        { ts: 2000, t: 2 },
        { ts: 3000, h: 30 },
      ]);
      assert.deepEqual((await results.ok('r', { entity: p.id })).payload, {
        t: [
          { ts: 1000, value: 1 },
          { ts: 2000, value: 2 },
        ],
        h: [
          { ts: 1000, value: 10 },
          { ts: 3000, value: 30 },
        ],
      });
    });

    it('the range is end-exclusive; msg.from / msg.to fill a range left empty (a fixed one wins); limit and order as asked', async () => {
      await load([
        tel('t', { operation: 'history', keys: 'temperature' }),
        tel('fixed', { operation: 'history', keys: 'temperature', last: '1h' }),
      ]);
      const a101 = dev('Thermo A-101');
      await results.ok('fixed', { entity: a101.id, from: BASE_TIME - 2 * HOUR, to: BASE_TIME });
      const q = (sim.requests.entries(1)[0] as { query: string }).query;
      assert.ok(
        !q.includes(`startTs=${BASE_TIME - 2 * HOUR}`) && !q.includes(`endTs=${BASE_TIME}&`),
        `the node's last hour, not the message's range: ${q}`,
      );
      let rows = (await results.ok('t', { entity: a101.id, from: BASE_TIME - 2 * HOUR, to: BASE_TIME }))
        .payload as Rec[];
      assert.deepEqual(
        rows.map((r) => r.ts),
        [BASE_TIME - 2 * HOUR, BASE_TIME - HOUR],
        'to is not included',
      );
      rows = (
        await results.ok('t', {
          entity: a101.id,
          from: new Date(A101_FROM),
          to: '2026-01-01T00:00:00.001Z',
          limit: 3,
          order: 'DESC',
        })
      ).payload as Rec[];
      assert.deepEqual(
        rows.map((r) => r.ts),
        [BASE_TIME, BASE_TIME - HOUR, BASE_TIME - 2 * HOUR],
        'the newest 3, newest first',
      );
      assert.equal(sim.requests.entries(1).length, 1);
    });

    it('maxItems cuts the read: yellow status and msg.truncated', async () => {
      await load([
        tel('t', {
          operation: 'history',
          keys: 'temperature',
          from: String(A101_FROM),
          to: String(BASE_TIME + 1),
          maxItems: 12,
        }),
      ]);
      const out = await results.ok('t', { entity: dev('Thermo A-103').id });
      assert.equal(out.truncated, true);
      assert.ok((out.payload as Rec[]).length <= 12);
      assert.deepEqual(last('t'), { fill: 'yellow', shape: 'dot', text: key('pointsCut') });
    });

    it('aggregation: hourly averages stamped at the middle of each interval', async () => {
      const p = probe();
      for (let i = 0; i < 6; i++) sim.data.setTelemetry(p.id, { t: i }, BASE_TIME + i * 30 * 60000);
      await load([tel('t', { operation: 'history', keys: 't', agg: 'AVG', interval: '1h' })]);
      const out = await results.ok('t', { entity: p.id, from: BASE_TIME, to: BASE_TIME + 3 * HOUR });
      assert.deepEqual(out.payload, [
        { ts: BASE_TIME + HOUR / 2, t: 0.5 },
        { ts: BASE_TIME + 1.5 * HOUR, t: 2.5 },
        { ts: BASE_TIME + 2.5 * HOUR, t: 4.5 },
      ]);
    });

    it('refused before sending: no keys, no range, an aggregation without an interval, more than 700 intervals', async () => {
      await load([tel('t', { operation: 'history' })]);
      const e = { entity: dev('Thermo A-101').id };
      await results.fails('t', { ...e, last: '1h' }, 'TB_INVALID_INPUT', /keys must name at least one key/);
      await results.fails('t', { ...e, keys: 't' }, 'TB_INVALID_INPUT', /from is missing/);
      await results.fails(
        't',
        { ...e, keys: 't', last: '24h', agg: 'AVG' },
        'TB_INVALID_INPUT',
        /needs an interval.*raw points/,
      );
      await results.fails(
        't',
        { ...e, keys: 't', last: '24h', agg: 'MAX', interval: '1m' },
        'TB_INVALID_INPUT',
        /^TbInputError: msg.interval must be at least 124s for this range.*1440 intervals, and ThingsBoard allows at most 700/,
      );
      await results.fails(
        't',
        { ...e, keys: 't', last: '24h', agg: 'MAX', intervalType: 'MONTH', timeZone: 'Nowhere/Land' },
        'TB_INVALID_INPUT',
        /IANA time zone/,
      );
      assert.equal(sent(), 0);
    });
  });

  describe('for a chart', () => {
    type Point = { series: string; key: string; ts: number; value: unknown };

    it('history: points { series, key, ts, value } oldest first (whatever the order asked), numbers as numbers, text as text, action replace', async () => {
      const p = probe();
      sim.data.setTelemetry(p.id, { t: 1, h: 10 }, 1000);
      sim.data.setTelemetry(p.id, { t: '2.5' }, 2000); // a number stored as text: the server sends "2.5"
      sim.data.setTelemetry(p.id, { h: 'n/a' }, 3000);
      await load([tel('t', { operation: 'history', keys: 't,h', from: '0', to: '10000', format: 'chart' })]);
      const out = await results.ok('t', { entity: p.id, order: 'DESC', topic: 'kept' });
      assert.deepEqual(out.payload, [
        { series: 't', key: 't', ts: 1000, value: 1 },
        { series: 'h', key: 'h', ts: 1000, value: 10 },
        { series: 't', key: 't', ts: 2000, value: 2.5 },
        { series: 'h', key: 'h', ts: 3000, value: 'n/a' },
      ]);
      assert.equal(out.action, 'replace');
      assert.equal(out.topic, 'kept', 'two series: msg.topic stays as it came');
      assert.match((sim.requests.entries(1)[0] as { query: string }).query, /orderBy=DESC/);
      assert.deepEqual(last('t'), { fill: 'green', shape: 'dot', text: key('points') });
    });

    it('history of one key: msg.topic is the key; the newest N (limit, DESC) still come oldest first', async () => {
      await load([tel('t', { operation: 'history', keys: 'temperature', format: 'chart' })]);
      const a101 = dev('Thermo A-101');
      const out = await results.ok('t', {
        entity: a101.id,
        from: BASE_TIME - 24 * HOUR,
        to: BASE_TIME + 1,
        limit: 3,
        order: 'DESC',
      });
      const points = out.payload as Point[];
      assert.deepEqual(
        points.map((x) => x.ts),
        [BASE_TIME - 2 * HOUR, BASE_TIME - HOUR, BASE_TIME],
      );
      assert.ok(points.every((x) => typeof x.value === 'number' && x.series === 'temperature'));
      assert.equal(out.topic, 'temperature');
      assert.equal(out.action, 'replace');
    });

    it('latest: one point per key with a value, oldest first; a numeric text becomes a number, other text stays', async () => {
      const p = probe();
      sim.data.setTelemetry(p.id, { b: 5 }, 2000);
      sim.data.setTelemetry(p.id, { a: '45' }, 1000);
      await load([
        tel('t', { operation: 'latest', keys: 'b, a, nope', format: 'chart' }),
        tel('k', { operation: 'latest', keys: 'temperature', format: 'chart' }),
      ]);
      const out = await results.ok('t', { entity: p.id });
      assert.deepEqual(out.payload, [
        { series: 'a', key: 'a', ts: 1000, value: 45 },
        { series: 'b', key: 'b', ts: 2000, value: 5 },
      ]);
      assert.equal(out.action, 'replace');
      assert.equal(out.ts, undefined, 'no msg.ts: each point has its own');
      assert.equal(out.topic, undefined, 'two series: no topic');
      const b102 = await results.ok('k', { entity: dev('Thermo B-102').id });
      assert.deepEqual(b102.payload, [{ series: 'temperature', key: 'temperature', ts: BASE_TIME, value: 'n/a' }]);
      assert.equal(b102.topic, 'temperature');
    });

    it('a list of entities: ONE list of points, each series "<entity name> · <key>" (names from the rows, else looked up), oldest first; failures listed', async () => {
      await load([tel('t', { operation: 'history', keys: 'temperature', format: 'chart' })]);
      const a101 = dev('Thermo A-101');
      const a102 = dev('Thermo A-102');
      const missing = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';
      const out = await results.ok('t', {
        // a query row brings its name; a bare id and an id object do not: their names are looked up
        entity: [{ id: a101.id, entityType: 'DEVICE', name: 'Thermo A-101' }, a102.id, missing],
        from: BASE_TIME - 2 * HOUR,
        to: BASE_TIME + 1,
      });
      const points = out.payload as Point[];
      assert.deepEqual(
        points.map((x) => [x.series, x.ts]),
        [
          ['Thermo A-101 · temperature', BASE_TIME - 2 * HOUR],
          ['Thermo A-102 · temperature', BASE_TIME - 2 * HOUR],
          ['Thermo A-101 · temperature', BASE_TIME - HOUR],
          ['Thermo A-102 · temperature', BASE_TIME - HOUR],
          ['Thermo A-101 · temperature', BASE_TIME],
          ['Thermo A-102 · temperature', BASE_TIME],
        ],
      );
      assert.ok(points.every((x) => x.key === 'temperature' && typeof x.value === 'number'));
      assert.equal(out.action, 'replace');
      assert.equal(out.failed, 1);
      const failures = out.failures as Array<{ entity: Rec; error: Rec }>;
      assert.deepEqual(
        failures.map((f) => [f.entity.id, f.error.code]),
        [[missing, 'TB_NOT_FOUND']],
      );
      assert.equal(
        sim.countRequests('/api/entitiesQuery/find', 'POST'),
        1,
        'one look-up for the names the list did not bring',
      );
      assert.deepEqual(last('t'), { fill: 'yellow', shape: 'dot', text: key('bulkPartial') });
    });

    it('a list of one entity with one key: msg.topic is its series; every row of a query names its own', async () => {
      await load([tel('t', { operation: 'latest', keys: 'temperature', format: 'chart' })]);
      const a103 = dev('Thermo A-103');
      const out = await results.ok('t', { entity: [{ id: a103.id, entityType: 'DEVICE', name: 'Thermo A-103' }] });
      const points = out.payload as Point[];
      assert.equal(points.length, 1);
      assert.deepEqual(
        [points[0].series, points[0].key, points[0].ts, typeof points[0].value],
        ['Thermo A-103 · temperature', 'temperature', BASE_TIME, 'number'],
      );
      assert.equal(out.topic, 'Thermo A-103 · temperature');
      assert.equal(out.failures, undefined);
      assert.equal(sim.countRequests('/api/entitiesQuery/find', 'POST'), 0, 'no look-up: the row had its name');
    });
  });

  describe('delete', () => {
    it('[from, to): the end is not deleted; msg.payload and msg.deleted = the keys; all: true deletes up to now', async () => {
      const p = probe();
      for (let i = 1; i <= 4; i++) sim.data.setTelemetry(p.id, { t: i, u: i }, i * 1000);
      await load([tel('d', { operation: 'delete' })]);
      const out = await results.ok('d', { entity: p.id, keys: 't', from: 1000, to: 3000, payload: 'kept' });
      assert.deepEqual(out.deleted, ['t']);
      assert.deepEqual(out.payload, ['t'], 'what was done, where a debug node looks first');
      assert.deepEqual(
        sim.data.history(p.id, 't').map((x) => x.ts),
        [3000, 4000],
      );
      await results.ok('d', { entity: p.id, all: true, keys: 't,u' });
      assert.deepEqual(sim.data.history(p.id, 't'), []);
      assert.deepEqual(sim.data.history(p.id, 'u'), []);
      assert.deepEqual(last('d'), { fill: 'green', shape: 'dot', text: key('deleted') });
    });

    it('refused before sending: no keys, no range, both all and a range', async () => {
      await load([tel('d', { operation: 'delete' })]);
      const e = { entity: probe().id };
      await results.fails('d', { ...e, all: true }, 'TB_INVALID_INPUT', /keys must name at least one key/);
      await results.fails('d', { ...e, keys: 't' }, 'TB_INVALID_INPUT', /all: true/);
      await results.fails(
        'd',
        { ...e, keys: 't', all: true, from: 5 },
        'TB_INVALID_INPUT',
        /either all: true, or from\/to/,
      );
      assert.equal(sent(), 0);
    });
  });

  describe('operation from the message', () => {
    it('msg.operation with the node set to msg; a wrong one is refused', async () => {
      await load([tel('m', { operation: 'msg', keys: 'temperature' })]);
      const a101 = dev('Thermo A-101');
      assert.deepEqual((await results.ok('m', { operation: 'latest', entity: a101.id })).payload, {
        temperature: 21.5,
      });
      await results.fails(
        'm',
        { operation: 'read', entity: a101.id },
        'TB_INVALID_INPUT',
        /msg\.operation must be one of save, latest, history, delete/,
      );
      await results.fails('m', { entity: a101.id }, 'TB_INVALID_INPUT', /msg\.operation.*missing/);
    });

    it("a fixed operation ignores msg.operation (another node's leftover)", async () => {
      await load([tel('t', { operation: 'latest', keys: 'temperature' })]);
      assert.deepEqual((await results.ok('t', { operation: 'acknowledge', entity: dev('Thermo A-101').id })).payload, {
        temperature: 21.5,
      });
    });
  });

  describe('errors', () => {
    it("a bare-string 404 and 403 give the server's words; a tenant administrator writing its own tenant is refused by design", async () => {
      await load([tel('t')]);
      const { error } = await results.fails(
        't',
        { entity: '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f', payload: { t: 1 } },
        'TB_NOT_FOUND',
        /was not found.*Device with requested id wasn't found!/,
      );
      assert.match(error.message as string, /HTTP 404/);
      assert.deepEqual(last('t'), { fill: 'red', shape: 'ring', text: key('notFound') });
      const tenant = sim.data.list('TENANT')[0];
      await results.fails(
        't',
        { entity: { entityType: 'TENANT', id: tenant.id }, payload: { t: 1 } },
        'TB_PERMISSION',
        /cannot write its own tenant's attributes or time series: ThingsBoard refuses it by design.*You don't have permission to perform this operation!/,
      );
      assert.deepEqual(last('t'), { fill: 'red', shape: 'ring', text: key('notPermitted') });
    });

    it("a customer user on another customer's device: 403 with the server's words", async () => {
      await load([tel('t', { operation: 'latest' })], { username: 'customer@thingsboard.org', password: 'customer' });
      await results.fails(
        't',
        { entity: dev('Thermo B-101').id },
        'TB_PERMISSION',
        /customer user may act only on its own customer's.*permission/i,
      );
    });

    it('a JSON error object and an empty body both give a readable message with the status', async () => {
      await load([tel('t', { operation: 'latest' })]);
      const e = { entity: dev('Thermo A-101').id };
      sim.faults.add({
        path: T,
        status: 400,
        body: { status: 400, message: 'Invalid key: \u00e7a', errorCode: 31, timestamp: NOW },
      });
      await results.fails('t', e, 'TB_BAD_REQUEST', /HTTP 400, errorCode 31: Invalid key: \u00e7a/);
      sim.faults.add({ path: T, status: 500, body: '' });
      const { error } = await results.fails(
        't',
        e,
        'TB_SERVER_ERROR',
        /ThingsBoard answered HTTP 500 \(GET \/api\/plugins\/telemetry\/DEVICE\//,
      );
      assert.ok((error.message as string).length > 40);
      sim.faults.add({ path: T, status: 400, body: 'Bad things: text' });
      await results.fails('t', e, 'TB_BAD_REQUEST', /HTTP 400: Bad things: text/);
    });
  });

  describe('bulk', () => {
    const thermostats = () => sim.data.devices().filter((d) => d.type === 'thermostat');

    it('one message with a result per entity, in input order, at most 4 requests at once', async () => {
      await load([tel('t', { operation: 'latest', keys: 'temperature' })]);
      const list = thermostats().reverse();
      assert.equal(list.length, 20);
      sim.setLatency(15);
      const flight = new InFlight(sim, T);
      try {
        const out = await results.ok('t', {
          entity: list.map((d) => ({ id: d.id, entityType: 'DEVICE', name: d.name })),
        });
        const res = out.payload as Array<{ entity: Rec; ok: boolean; payload: Rec }>;
        assert.deepEqual(
          res.map((r) => r.entity.id),
          list.map((d) => d.id),
        );
        assert.ok(res.every((r) => r.ok === true));
        assert.equal(res.find((r) => r.entity.id === dev('Thermo A-101').id)!.payload.temperature, 21.5);
        assert.equal(out.failed, 0);
        assert.equal(flight.peak, 4, 'the default concurrency');
      } finally {
        flight.stop();
      }
      assert.deepEqual(last('t'), { fill: 'green', shape: 'dot', text: key('bulkDone') });
    });

    it('concurrency 1 is one at a time; the whole entity-query output works as the list', async () => {
      await load([
        {
          id: 'q',
          type: 'tb-entity-query',
          connection: 'c1',
          queryType: 'json',
          query: JSON.stringify({ entityFilter: { type: 'deviceType', deviceTypes: ['meter'] } }),
          format: 'raw',
          wires: [['mv']],
        },
        {
          id: 'mv',
          type: 'change',
          z: 't',
          x: 300,
          y: 300,
          rules: [
            { t: 'move', p: 'payload', pt: 'msg', to: 'entity', tot: 'msg' },
            { t: 'set', p: 'payload', pt: 'msg', to: '{"maintenance":true}', tot: 'json' },
          ],
          wires: [['t']],
        },
        tel('t', { concurrency: 1 }),
      ]);
      sim.setLatency(10);
      const flight = new InFlight(sim, T);
      try {
        inject('q', {});
        const r = await results.next();
        const res = r.out!.payload as Array<{ ok: boolean; entity: Rec }>;
        assert.equal(res.length, 6);
        assert.ok(res.every((x) => x.ok));
        assert.equal(flight.peak, 1);
        for (const m of sim.data.devices().filter((d) => d.type === 'meter'))
          assert.equal(sim.data.latestOf(m.id, 'maintenance')?.value, true);
      } finally {
        flight.stop();
      }
    });

    it('a partial failure is in the results and a yellow status ("19 of 20, 1 failed"), not an error', async () => {
      await load([tel('t')]);
      const list = thermostats().map((d) => d.id);
      const missing = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';
      list.splice(7, 1, missing);
      const out = await results.ok('t', { entity: list, payload: { setpoint: 20 } });
      const res = out.payload as Array<{ entity: Rec; ok: boolean; error?: Rec; payload?: unknown }>;
      assert.equal(res.length, 20);
      assert.equal(out.failed, 1);
      assert.deepEqual(res[7].entity, { entityType: 'DEVICE', id: missing });
      assert.equal(res[7].ok, false);
      assert.equal(res[7].error!.code, 'TB_NOT_FOUND');
      assert.match(res[7].error!.message as string, /Device with requested id wasn't found!/);
      assert.ok(res.filter((_, i) => i !== 7).every((r) => r.ok && Array.isArray(r.payload)));
      assert.deepEqual(last('t'), { fill: 'yellow', shape: 'dot', text: key('bulkPartial') });
    });

    it('when every entity fails the error goes to Catch, with the results on the message', async () => {
      await load([tel('t')]);
      const tenant = sim.data.list('TENANT')[0];
      const { msg, error } = await results.fails(
        't',
        {
          entity: [
            { entityType: 'TENANT', id: tenant.id },
            { entityType: 'TENANT', id: tenant.id },
          ],
          payload: { x: 1 },
        },
        'TB_PERMISSION',
        /All 2 entities failed; the first, TENANT/,
      );
      assert.ok(error);
      assert.equal(msg.failed, 2);
      assert.equal((msg.payload as unknown[]).length, 2);
    });
  });
});
