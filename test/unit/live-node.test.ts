/**
 * The node side of the live nodes without a runtime: the `events` setting of tb-subscribe (droppedEvents) and
 * the sink that filters events before any message is built while the status follows every event; the shapes for
 * Dashboard 2 (a chart's points, a table's rows) made of the events.
 */
import assert from 'node:assert/strict';
import type { Node, NodeAPI, NodeMessage, NodeStatus } from 'node-red';
import { TbConfigError } from '../../src/errors';
import { chartShape, NodeSink, tableShape } from '../../src/families/live-node';
import type { LiveEvent } from '../../src/live/subscriptions';
import { droppedEvents, formatProblem, watchesSeveral } from '../../src/nodes/tb-subscribe/logic';
import { CHOOSABLE_EVENTS } from '../../src/nodes/tb-subscribe/settings';

describe('live nodes: the events setting and the sink', function () {
  describe('droppedEvents (the `events` property of tb-subscribe)', function () {
    it('missing, empty or blank entries: every event is sent', function () {
      for (const kind of ['entityData', 'alarmData']) {
        for (const v of [undefined, null, '', '  ', ' , ,', []])
          assert.equal(droppedEvents(kind, v), undefined, `${kind} ${JSON.stringify(v)}`);
        assert.equal(
          droppedEvents(kind, CHOOSABLE_EVENTS[kind as 'entityData'].join(',')),
          undefined,
          'every name listed',
        );
      }
    });

    it('a list keeps the named events and drops the others of that kind', function () {
      assert.deepEqual([...droppedEvents('entityData', ' update ,added')!].sort(), ['removed', 'snapshot']);
      assert.deepEqual([...droppedEvents('alarmData', 'created')!].sort(), [
        'acknowledged',
        'cleared',
        'removed',
        'snapshot',
        'updated',
      ]);
      assert.deepEqual([...droppedEvents('alarmData', ['created', 'cleared', 'created'])!].sort(), [
        'acknowledged',
        'removed',
        'snapshot',
        'updated',
      ]);
    });

    it('count subscriptions only ever send their count: the setting does not apply to them', function () {
      for (const kind of ['entityCount', 'alarmCount']) {
        assert.equal(droppedEvents(kind, 'snapshot'), undefined);
        assert.equal(droppedEvents(kind, 'anything'), undefined);
      }
    });

    it('an unknown name, a name of the other kind or a wrong type: a TbConfigError naming `events` and the allowed names', function () {
      const cases: Array<[string, unknown, RegExp]> = [
        [
          'entityData',
          'created',
          /^events: "created" is not an event of entity data; choose from snapshot, update, added, removed \(empty = all; counts, time series and history are always sent\)$/,
        ],
        ['entityData', 'snapshot,Update', /^events: "Update" is not an event of entity data/],
        [
          'entityData',
          'timeseries',
          /"timeseries" is not an event of entity data; .*time series and history are always sent/,
        ],
        [
          'alarmData',
          'update, added',
          /^events: "update", "added" are not events of alarm data; choose from snapshot, created, acknowledged, cleared, updated, removed /,
        ],
        ['alarmData', 7, /^events must be a comma-separated list of alarm data events: choose from snapshot, created/],
        ['alarmData', ['created', 1], /^events must be a comma-separated list/],
      ];
      for (const [kind, v, re] of cases) {
        assert.throws(
          () => droppedEvents(kind, v),
          (err: unknown) => err instanceof TbConfigError && err.code === 'TB_CONFIG' && re.test(err.message),
          `${kind} ${JSON.stringify(v)}`,
        );
      }
    });
  });

  describe('NodeSink', function () {
    function fakeNode() {
      const sent: NodeMessage[] = [];
      const shown: NodeStatus[] = [];
      const node = {
        send: (m: NodeMessage) => sent.push(m),
        status: (s: NodeStatus) => shown.push(s),
        error: () => undefined,
      } as unknown as Node;
      return { node, sent, shown };
    }
    const RED = { _: (k: string) => k } as unknown as NodeAPI;
    const snapshot: LiveEvent = {
      event: 'snapshot',
      items: [{ id: 'a' }, { id: 'b' }],
      page: { page: 0, pageSize: 10, totalPages: 1, totalElements: 2, hasNext: false },
    };

    it('sends only the chosen events, but asks for the status after every one', function () {
      const { node, sent, shown } = fakeNode();
      const seen: string[] = [];
      const sink = new NodeSink(
        RED,
        node,
        't',
        (ev) => {
          seen.push(ev ? ev.event : '-');
          return ev ? { fill: 'green', shape: 'dot', text: `after ${ev.event}` } : undefined;
        },
        droppedEvents('entityData', 'update'),
      );
      sink.event(snapshot);
      sink.event({ event: 'update', id: 'a', item: { id: 'a' }, changed: ['t'] });
      sink.event({ event: 'added', id: 'c', item: { id: 'c' } });
      sink.event({ event: 'timeseries', id: 'a', item: {} });
      assert.deepEqual(
        sent.map((m) => (m as Record<string, unknown>).event),
        ['update', 'timeseries'],
      );
      assert.deepEqual(seen, ['snapshot', 'update', 'added', 'timeseries']);
      assert.deepEqual(
        shown.map((s) => s.text),
        ['after snapshot', 'after update', 'after added', 'after timeseries'],
      );
    });

    it('sets an unchanged status once, also across sinks that share one memo', function () {
      const { node, shown } = fakeNode();
      const memo = {};
      const fixed = (): NodeStatus => ({ fill: 'green', shape: 'dot', text: 'same' });
      const a = new NodeSink(RED, node, 'a', fixed, undefined, memo);
      const b = new NodeSink(RED, node, 'b', fixed, undefined, memo);
      a.event(snapshot);
      b.event(snapshot);
      a.event(snapshot);
      assert.equal(shown.length, 1);
    });
  });

  describe('shapes for Dashboard 2', function () {
    const PAGE = { page: 0, pageSize: 10, totalPages: 1, totalElements: 2, hasNext: false };
    let n = 0;
    const id = () => `m${++n}`;
    const row = (name: string, values: Record<string, unknown>, ts: Record<string, number>) => ({
      id: `id-${name}`,
      entityType: 'DEVICE',
      name,
      ...values,
      ts,
    });
    type M = Record<string, unknown>;

    it('a chart of several entities: the page as ONE list (oldest first, replace), then a message per changed value with a time', function () {
      const shape = chartShape(true);
      const snap = shape(
        {
          event: 'snapshot',
          items: [row('B', { t: 2 }, { t: 2000 }), row('A', { t: '1', h: null }, { t: 1000, h: 0 })],
          page: PAGE,
        },
        'entityData',
        id,
      ) as M;
      assert.deepEqual(snap.payload, [
        { series: 'A · t', key: 't', ts: 1000, value: 1 },
        { series: 'B · t', key: 't', ts: 2000, value: 2 },
      ]);
      assert.deepEqual([snap.action, snap.topic, snap.event, snap.page], ['replace', 'entityData', 'snapshot', PAGE]);
      const out = shape(
        {
          event: 'update',
          id: 'id-A',
          // name is an entity field (no time), h was deleted (time 0): no point for either
          item: row('A', { t: 3, u: 'on', h: null }, { t: 3000, u: 3000, h: 0 }),
          changed: ['name', 't', 'u', 'h'],
        },
        'entityData',
        id,
      ) as M[];
      assert.deepEqual(
        out.map((m) => [m.topic, m.payload, m.action, m.event]),
        [
          ['A · t', { series: 'A · t', key: 't', ts: 3000, value: 3 }, 'append', 'update'],
          ['A · u', { series: 'A · u', key: 'u', ts: 3000, value: 'on' }, 'append', 'update'],
        ],
      );
      assert.notEqual(out[0]._msgid, out[1]._msgid);
      const one = shape(
        { event: 'update', id: 'id-B', item: row('B', { t: 4 }, { t: 4000 }), changed: ['t'] },
        'entityData',
        id,
      ) as M;
      assert.ok(!Array.isArray(one), 'one changed value: one message');
      assert.deepEqual(one.entity, { entityType: 'DEVICE', id: 'id-B' });
      assert.equal(
        shape({ event: 'update', id: 'id-B', item: row('B', {}, {}), changed: ['name'] }, 'entityData', id),
        undefined,
      );
      assert.equal(shape({ event: 'removed', id: 'id-B', item: row('B', {}, {}) }, 'entityData', id), undefined);
      // time series and history carry only the id: the name seen before names the series
      const series = shape(
        { event: 'timeseries', id: 'id-A', item: { id: 'id-A', series: { t: [{ ts: 5000, value: 5 }] } } },
        'entityData',
        id,
      ) as M;
      assert.deepEqual(
        [series.payload, series.action, series.topic],
        [[{ series: 'A · t', key: 't', ts: 5000, value: 5 }], 'append', 'A · t'],
      );
      const history = shape(
        {
          event: 'history',
          items: [
            { id: 'id-A', series: { t: [{ ts: 900, value: 0.5 }] } },
            { id: 'id-Z', series: { t: [{ ts: 800, value: '7' }] } },
          ],
        },
        'entityData',
        id,
      ) as M;
      assert.deepEqual(history.payload, [
        { series: 'id-Z · t', key: 't', ts: 800, value: 7 },
        { series: 'A · t', key: 't', ts: 900, value: 0.5 },
      ]);
      assert.equal(history.action, 'replace');
    });

    it('a chart of one entity: the series is the key, and msg.topic of a list of one series', function () {
      const shape = chartShape(false);
      const snap = shape(
        { event: 'snapshot', items: [row('A', { t: 1 }, { t: 1000 })], page: PAGE },
        'entityData',
        id,
      ) as M;
      assert.deepEqual([snap.topic, (snap.payload as M[])[0].series], ['t', 't']);
      const u = shape(
        { event: 'update', id: 'id-A', item: row('A', { t: 2 }, { t: 2000 }), changed: ['t'] },
        'entityData',
        id,
      ) as M;
      assert.equal(u.topic, 't');
    });

    it('a table: every message the whole table (replace); new first, a change in place, gone when off the page', function () {
      const onPage = new Set(['a1', 'a2']);
      const shape = tableShape((x) => onPage.has(x));
      const alarm = (x: string, extra: Record<string, unknown> = {}) => ({
        id: { entityType: 'ALARM', id: x },
        originator: { entityType: 'DEVICE', id: 'd' },
        originatorName: 'Thermo A-101',
        type: `T ${x}`,
        severity: 'MAJOR',
        status: 'ACTIVE_UNACK',
        createdTime: 1,
        ackTs: 0,
        clearTs: 0,
        assignee: null,
        ...extra,
      });
      const ids = (m: unknown) => ((m as M).payload as M[]).map((r) => r.id);
      const snap = shape({ event: 'snapshot', items: [alarm('a1'), alarm('a2')], page: PAGE }, 'alarmData', id) as M;
      assert.deepEqual([ids(snap), snap.action], [['a1', 'a2'], 'replace']);
      onPage.add('a3');
      const created = shape({ event: 'created', id: 'a3', item: alarm('a3') }, 'alarmData', id) as M;
      assert.deepEqual([ids(created), created.topic, created.event], [['a3', 'a1', 'a2'], 'a3', 'created']);
      assert.deepEqual(created.entity, { entityType: 'DEVICE', id: 'd' });
      const acked = shape(
        { event: 'acknowledged', id: 'a1', item: alarm('a1', { ackTs: 5, status: 'ACTIVE_ACK' }) },
        'alarmData',
        id,
      ) as M;
      assert.deepEqual(ids(acked), ['a3', 'a1', 'a2']);
      assert.equal(((acked.payload as M[])[1] as M).acknowledged, 5);
      onPage.delete('a2');
      assert.deepEqual(ids(shape({ event: 'cleared', id: 'a2', item: alarm('a2') }, 'alarmData', id)), ['a3', 'a1']);
      assert.deepEqual(ids(shape({ event: 'removed', id: 'a3', item: alarm('a3') }, 'alarmData', id)), ['a1']);
      assert.equal(shape({ event: 'count', count: 3 }, 'alarmData', id), undefined);
    });

    it('a sink with a shape sends each of its messages, and none when it gives none', function () {
      const sent: unknown[] = [];
      const node = { send: (m: unknown) => sent.push(m), status: () => undefined } as unknown as Node;
      const RED = { _: (k: string) => k } as unknown as NodeAPI;
      const sink = new NodeSink(RED, node, 'entityData', () => undefined, undefined, {}, chartShape(false));
      sink.event({ event: 'update', id: 'x', item: row('A', { t: 1, u: 2 }, { t: 1, u: 2 }), changed: ['t', 'u'] });
      sink.event({ event: 'removed', id: 'x', item: row('A', {}, {}) });
      assert.deepEqual(
        sent.map((m) => (m as M).topic),
        ['t', 'u'],
      );
    });

    it('tb-subscribe: chart is for entities, table for alarms; a list of one entity watches one', function () {
      assert.equal(formatProblem('entityData', 'chart'), undefined);
      assert.equal(formatProblem('alarmData', 'table'), undefined);
      assert.equal(formatProblem('entityCount', 'flat'), undefined);
      assert.match(String(formatProblem('alarmData', 'chart')?.message), /format chart is for entity data/);
      assert.match(String(formatProblem('notifications', 'table')?.message), /format table is for alarm data/);
      assert.equal(watchesSeveral({ entityFilter: { type: 'singleEntity', singleEntity: {} } }), false);
      assert.equal(watchesSeveral({ entityFilter: { type: 'entityList', entityList: ['a'] } }), false);
      assert.equal(watchesSeveral({ entityFilter: { type: 'entityList', entityList: ['a', 'b'] } }), true);
      assert.equal(watchesSeveral({ entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } }), true);
    });
  });
});
