/**
 * The chain carries the entity, in the real Node-RED runtime against the simulator: each node that acts on, reads or
 * waits for entities says in msg.entity what it acted on, as the next node reads it; a query's list left in
 * msg.payload is read by an action node; and each action says what it did where a debug node looks first. Then two
 * chains of two nodes: an RPC to a device picked by name → wait until (at its default), and a query → save attributes
 * with the query's Output left at msg.payload.
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim';
import type { TbConnectionNode } from '../../src/node-red/connection';
import tbAlarmAction from '../../src/nodes/tb-alarm-action/index';
import tbAlarmStatus from '../../src/nodes/tb-alarm-status/index';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbRpc from '../../src/nodes/tb-rpc/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import tbTelemetry from '../../src/nodes/tb-telemetry/index';
import tbWaitUntil from '../../src/nodes/tb-wait-until/index';
import {
  assertCode,
  Collector,
  connectionNode,
  flow,
  helper,
  inject,
  key,
  statusWhere,
  TENANT,
  useRuntime,
  type Msg,
  type Rec,
} from '../support/runtime';
import { fakeTimers, waitFor } from '../support/wait';

const NODES = [
  tbConnection,
  tbTelemetry,
  tbAttributes,
  tbRpc,
  tbWaitUntil,
  tbAlarmAction,
  tbSubscribe,
  tbAlarmStatus,
  tbEntityQuery,
];
const NOW = BASE_TIME + HOUR;
const PROBE_TYPE = 'chain-probe';

describe('the chain carries the entity (runtime + simulator)', function () {
  const sim = useRuntime(
    { now: () => NOW },
    { settings: { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 } },
  );
  let ts = NOW;
  let probes = 0;
  /** A fresh device of its own, with a temperature when given. */
  const probe = (temperature?: number) => {
    const e = sim.data.addEntity({ entityType: 'DEVICE', name: `Chain probe ${++probes}`, type: PROBE_TYPE });
    if (temperature !== undefined) sim.data.setTelemetry(e.id, { temperature }, ++ts);
    return e;
  };
  const idOf = (e: { id: string }) => ({ entityType: 'DEVICE', id: e.id });
  const load = async (nodes: Rec[]) => {
    await helper.unload();
    await helper.load(NODES, flow(connectionNode(sim.url), ...nodes), { c1: TENANT });
  };
  /** The next message that reaches helper `id`, or the error a Catch node got (then it throws with its text). */
  const next = async (id: string, send: () => void): Promise<Msg> => {
    const out = new Collector(id);
    const caught = new Collector('caught');
    send();
    const m = await Promise.race([out.until(() => true, 8000, true), caught.until(() => true, 8000, true)]);
    if (m.error) throw new Error(`caught: ${String((m.error as Rec).message)}`);
    return m;
  };
  const caught = async (send: () => void): Promise<Rec> => {
    const c = new Collector('caught');
    send();
    return (await c.until(() => true, 8000, true)).error as Rec;
  };
  const action = (type: string, id: string, props: Rec = {}): Rec => ({
    id,
    type,
    connection: 'c1',
    wires: [['out']],
    ...props,
  });
  /** The settings of a one-way RPC to device `e` picked by name: its method, and its params as JSON. */
  const oneWay = (e: { id: string }, method: string, params: string): Rec => ({
    targetType: 'json',
    target: JSON.stringify(idOf(e)),
    methodType: 'str',
    method,
    paramsFrom: 'json',
    params,
    mode: 'oneway',
  });
  /** Wait until temperature ≥ 21, for `timeout`: met, to helper "out"; timed out, to helper "late". */
  const waitUntil21 = (timeout: string): Rec[] => [
    action('tb-wait-until', 'w', {
      key: 'temperature',
      operator: 'gte',
      value: '21',
      valueType: 'num',
      timeout,
      wires: [['out'], ['late']],
    }),
    { id: 'late', type: 'helper', z: 't', x: 300, y: 300, wires: [] },
  ];

  describe('msg.entity: what was acted on, as the next node reads it', () => {
    it('telemetry: a device picked by name, an id in msg.topic, a query list in msg.payload', async () => {
      const a = probe(20);
      const b = probe(21);
      await load([
        action('tb-telemetry', 'fixed', {
          operation: 'latest',
          targetType: 'json',
          target: JSON.stringify(idOf(a)),
        }),
        action('tb-telemetry', 'auto', { operation: 'latest', keys: 'temperature' }),
      ]);
      const fixed = await next('out', () => inject('fixed', { payload: 1767225600000 }));
      assert.deepEqual(fixed.entity, idOf(a), 'picked by name: the device');
      const topic = await next('out', () => inject('auto', { topic: b.id }));
      assert.deepEqual(topic.entity, idOf(b), 'an id in msg.topic: the device, typed');
      assert.equal(topic.topic, b.id, 'msg.topic as it was');
      const rows = [
        { id: a.id, entityType: 'DEVICE', name: a.name, ts: {} },
        { id: b.id, entityType: 'DEVICE', name: b.name, ts: {} },
      ];
      const list = await next('out', () => inject('auto', { payload: rows }));
      assert.deepEqual(list.entity, [idOf(a), idOf(b)], 'the list for a list');
      assert.deepEqual(
        (list.payload as Rec[]).map((r) => [r.ok, (r.payload as Rec).temperature]),
        [
          [true, 20],
          [true, 21],
        ],
      );
      const kept = await next('out', () => inject('auto', { entity: rows }));
      assert.deepEqual(kept.entity, rows, 'read from msg.entity: kept as it came, names and all');
    });

    it('attributes: the list a query left in msg.payload is read; its rows saved on each, and said in msg.payload', async () => {
      const a = probe();
      const b = probe();
      await load([
        action('tb-attributes', 'rows', {
          scope: 'SHARED_SCOPE',
          valuesFrom: 'rows',
          values: [{ key: 'targetTemperature', type: 'num', value: '21' }],
        }),
        action('tb-attributes', 'payload', { scope: 'SHARED_SCOPE' }),
      ]);
      const rows = [
        { id: a.id, entityType: 'DEVICE', name: a.name },
        { id: b.id, entityType: 'DEVICE', name: b.name },
      ];
      const out = await next('out', () => inject('rows', { payload: rows }));
      assert.deepEqual(out.entity, [idOf(a), idOf(b)]);
      assert.deepEqual(
        (out.payload as Rec[]).map((r) => [r.ok, r.payload]),
        [
          [true, { targetTemperature: 21 }],
          [true, { targetTemperature: 21 }],
        ],
      );
      for (const e of [a, b]) assert.equal(sim.data.attributeOf(e.id, 'SHARED_SCOPE', 'targetTemperature')?.value, 21);
      // One entity, values set here: msg.payload says what was written (it held the inject's timestamp).
      const one = await next('out', () => inject('rows', { entity: a.id, payload: 1767225600000 }));
      assert.deepEqual(one.payload, { targetTemperature: 21 });
      assert.deepEqual(one.entity, idOf(a), 'a bare id becomes the entity');
      // Values from msg.payload: a list of entities there is not taken for the entities, and the error says why.
      const error = await caught(() => inject('payload', { payload: rows }));
      assertCode(error, 'TB_INVALID_INPUT');
      assert.match(
        String(error.message),
        /: Set the query node's Output to msg\.entity \(msg\.payload holds the values to save\)$/,
      );
    });

    it('rpc: the device picked by name; a one-way RPC says what was sent in msg.payload', async () => {
      const a = probe();
      await load([action('tb-rpc', 'r', oneWay(a, 'reboot', '{"delay": 5}'))]);
      const out = await next('out', () => inject('r', { payload: 1767225600000 }));
      assert.deepEqual(out.entity, idOf(a));
      assert.deepEqual(out.payload, { method: 'reboot', params: { delay: 5 }, status: 'SENT' });
      assert.deepEqual(out.rpc, { method: 'reboot', params: { delay: 5 }, status: 'SENT' });
    });

    it('wait until: the entity waited on, and how it ended in msg.topic (msg.payload passed on)', async () => {
      const a = probe(20);
      await load(waitUntil21('30s'));
      // Timed out: the wait's timer is fake, installed before the message starts it; the value it last saw, 19.5, is
      // read before the time is up (in the subscription's first answer, or the change after it).
      sim.data.setTelemetry(a.id, { temperature: 19.5 }, ++ts);
      const frames = () => (helper.getNode('c1') as unknown as TbConnectionNode).live().stats.messages;
      const subscribed = () => waitFor(() => sim.ws.sessionList().some((x) => x.cmdIds.length > 0));
      const late = new Collector('late');
      const clock = fakeTimers();
      try {
        inject('w', { entity: [a.id], payload: 'kept' });
        await subscribed();
        const before = frames();
        sim.data.setTelemetry(a.id, { temperature: 19.5 }, ++ts);
        await waitFor(() => frames() > before, 5000, 'the change read');
        await clock.tickAsync(30000);
        const m = await late.until(() => true, 8000, true);
        assert.deepEqual(m.entity, [idOf(a)], 'the list for a list; a bare id becomes the entity');
        assert.equal(m.topic, 'timed out after 30 s: 0 of 1 entities met');
        assert.equal(m.payload, 'kept');
        assert.deepEqual(((m.waited as Rec).entities as Rec[])[0].value, 19.5);
      } finally {
        clock.restore();
      }
      // Met: the current value already meets it (after the timed-out wait: its socket closes on real timers).
      sim.data.setTelemetry(a.id, { temperature: 22 }, ++ts);
      const met = await next('out', () => inject('w', { topic: a.id, payload: 'kept' }));
      assert.deepEqual(met.entity, idOf(a));
      assert.equal(met.topic, 'met: temperature 22');
      assert.equal(met.payload, 'kept');
    });

    it('alarm action: the entity that raised the alarm', async () => {
      const a = probe();
      const alarm = sim.data.createAlarm({ originator: a.id, type: 'Chain Alarm', severity: 'MAJOR' });
      await load([action('tb-alarm-action', 'ack')]);
      const out = await next('out', () => inject('ack', { payload: alarm.id }));
      assert.deepEqual(out.entity, idOf(a));
      assert.equal(out.topic, alarm.id, 'msg.topic: the alarm, as before');
    });

    it('subscribe and alarm status: a message about one entity or alarm carries the entity; msg.topic as before', async () => {
      const a = probe(20);
      await load([
        action('tb-subscribe', 'live', {
          kind: 'entityData',
          queryType: 'json',
          format: 'flat',
          query: JSON.stringify({
            entityFilter: { type: 'singleEntity', singleEntity: idOf(a) },
            latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
            pageLink: { page: 0, pageSize: 10 },
          }),
        }),
        action('tb-subscribe', 'alarms', {
          kind: 'alarmData',
          queryType: 'json',
          format: 'flat',
          query: JSON.stringify({
            entityFilter: { type: 'singleEntity', singleEntity: idOf(a) },
            pageLink: { page: 0, pageSize: 10, statusList: ['ACTIVE'] },
          }),
        }),
        action('tb-alarm-status', 'status', { originatorType: 'DEVICE', originatorId: a.id }),
      ]);
      const c = new Collector('out');
      const status = await c.until((m) => m.originator !== undefined, 8000, true);
      assert.deepEqual(status.entity, idOf(a));
      assert.equal(status.topic, a.id);
      await c.until((m) => m.event === 'snapshot' && m.topic === 'entityData', 8000, true);
      await c.until((m) => m.event === 'snapshot' && m.topic === 'alarmData', 8000, true);
      sim.data.setTelemetry(a.id, { temperature: 25 }, ++ts);
      const update = await c.until((m) => m.event === 'update');
      assert.deepEqual(update.entity, idOf(a));
      assert.equal(update.topic, a.id);
      const alarm = sim.data.createAlarm({ originator: a.id, type: 'Chain Live', severity: 'MINOR' });
      const created = await c.until((m) => m.event === 'created');
      assert.deepEqual(created.entity, idOf(a), "an alarm's message: the entity that raised it");
      assert.equal(created.topic, alarm.id);
    });
  });

  describe('two nodes, no second pick', () => {
    it('rpc to a device picked by name → wait until at its default: the wait watches that device', async () => {
      const a = probe(19);
      await load([
        action('tb-rpc', 'r', { ...oneWay(a, 'setTarget', '{"temperature": 21}'), wires: [['w']] }),
        ...waitUntil21('30m'),
      ]);
      const out = new Collector('out');
      const caughtAny = new Collector('caught');
      inject('r', { payload: 1767225600000 });
      await statusWhere('w', (s) => s.text === key('waiting'));
      assert.equal(sim.rpc.calls(a.id).length, 1, 'the command went to the device');
      assert.equal(caughtAny.all.length, 0, 'no "msg.entity is missing"');
      sim.data.setTelemetry(a.id, { temperature: 21.5 }, ++ts);
      const m = await out.until(() => true, 8000, true);
      assert.deepEqual((m.waited as Rec).entity, idOf(a));
      assert.equal((m.waited as Rec).value, 21.5);
      assert.deepEqual(m.entity, idOf(a));
      assert.equal(m.topic, 'met: temperature 21.5');
      assert.deepEqual(m.rpc, { method: 'setTarget', params: { temperature: 21 }, status: 'SENT' });
    });

    it("query → save attributes, the query's Output left at msg.payload: saved on every entity found", async () => {
      const found = [probe(), probe()];
      await load([
        {
          id: 'q',
          type: 'tb-entity-query',
          connection: 'c1',
          queryType: 'json',
          query: JSON.stringify({
            entityFilter: { type: 'deviceType', deviceTypes: [PROBE_TYPE] },
            entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
            pageLink: { page: 0, pageSize: 100 },
          }),
          format: 'flat',
          wires: [['a']],
        },
        action('tb-attributes', 'a', {
          scope: 'SHARED_SCOPE',
          valuesFrom: 'rows',
          values: [{ key: 'mode', type: 'str', value: 'eco' }],
        }),
      ]);
      const out = await next('out', () => inject('q', { payload: 1767225600000 }));
      const all = sim.data.list('DEVICE').filter((e) => e.type === PROBE_TYPE);
      assert.ok(all.length >= found.length);
      assert.equal((out.payload as Rec[]).length, all.length);
      assert.equal(out.failed, 0);
      for (const e of all) assert.equal(sim.data.attributeOf(e.id, 'SHARED_SCOPE', 'mode')?.value, 'eco', e.name);
    });
  });
});
