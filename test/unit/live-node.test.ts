/**
 * The node side of the live nodes without a runtime: the `events` setting of tb-subscribe (droppedEvents) and
 * the sink that filters events before any message is built while the status follows every event.
 */
import assert from 'node:assert/strict';
import type { Node, NodeAPI, NodeMessage, NodeStatus } from 'node-red';
import { TbConfigError } from '../../src/errors';
import { NodeSink } from '../../src/families/live-node';
import type { LiveEvent } from '../../src/live/subscriptions';
import { droppedEvents } from '../../src/nodes/tb-subscribe/logic';
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
});
