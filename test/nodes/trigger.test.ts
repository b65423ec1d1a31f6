/**
 * tb-trigger in the real Node-RED runtime against the simulator's WebSocket over loopback, its deadlines on sinon's
 * fake clock: a value held for a while on one entity, on a query's list (devices coming and going in a dynamic
 * query while held) and on the entities messages name; the hold-off and the reminders; reconnects during a hold;
 * alarms not acknowledged in time; a device gone silent; msg.reset; the state at start; redeploys; bad input.
 */
import assert from 'node:assert/strict';
import type { Node } from 'node-red';
import type sinon from 'sinon';
import type { TbConnectionNode } from '../../src/node-red/connection';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbTrigger from '../../src/nodes/tb-trigger/index';
import {
  connectionNode,
  flow,
  helper,
  inject,
  key,
  statuses,
  TENANT,
  useRuntime,
  warningsOf,
  type Msg,
  type Rec,
} from '../support/runtime';
import { fakeTimers, realTimers, waitFor } from '../support/wait';

const NODES = [tbConnection, tbTrigger];
const S = 1000;
const MIN = 60 * S;

type Port = 'true' | 'false' | 'error';

/** What leaves the trigger: each message with its port ("true" / "false") or the error caught. */
class Outputs {
  readonly all: Array<{ port: Port; msg: Msg }> = [];
  private waiters: Array<() => void> = [];

  constructor() {
    for (const [id, port] of [
      ['out', 'true'],
      ['off', 'false'],
      ['caught', 'error'],
    ] as const) {
      (helper.getNode(id) as unknown as Node).on('input', (msg: Msg) => {
        this.all.push({ port, msg });
        for (const w of this.waiters.splice(0)) w();
      });
    }
  }

  /** Output number n (from 0), waiting for it in real time (also under fake timers). */
  async nth(n: number, ms = 8000): Promise<{ port: Port; msg: Msg }> {
    const end = performance.now() + ms;
    while (this.all.length <= n) {
      const left = end - performance.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for output #${n + 1} (got ${this.all.length}: ${this.all.map((o) => o.msg.topic ?? o.port).join('; ')})`,
        );
      await new Promise<void>((resolve) => {
        const t = realTimers.setTimeout(resolve, left);
        this.waiters.push(() => {
          realTimers.clearTimeout(t);
          resolve();
        });
      });
    }
    return this.all[n];
  }

  next(ms?: number): Promise<{ port: Port; msg: Msg }> {
    return this.nth(this.all.length, ms);
  }

  /** The topics so far, with their port. */
  topics(): string[] {
    return this.all.map((o) => `${o.port} ${String(o.msg.topic ?? (o.msg.error as Rec)?.message)}`);
  }
}

describe('tb-trigger (runtime + simulator WebSocket, fake clock)', function () {
  // The simulator's clock is the process's: under fake timers, the times of values and alarms follow the fake one.
  const sim = useRuntime(
    { now: () => Date.now(), wsDynamicRefreshMs: 40 },
    { settings: { tbConnectionReconnectInitialMs: 20, tbConnectionReconnectMaxMs: 200 } },
  );
  let clock: sinon.SinonFakeTimers | undefined;
  afterEach(() => {
    clock?.restore();
    clock = undefined;
    sim.ws.pauseFrames(false);
    sim.ws.refuseAuth(false);
  });

  let probes = 0;
  /** A fresh device of its own type (no other test's), with a temperature when given. */
  const probe = (temperature?: number, type = 'trigger-probe') => {
    const e = sim.data.addEntity({ entityType: 'DEVICE', name: `Trigger probe ${++probes}`, type });
    if (temperature !== undefined) sim.data.setTelemetry(e.id, { temperature }, Date.now());
    return { entityType: 'DEVICE', id: e.id };
  };
  const setT = (e: { id: string }, v: number) => sim.data.setTelemetry(e.id, { temperature: v }, Date.now());
  const hub = () => (helper.getNode('c1') as unknown as TbConnectionNode).live();
  const serverSubs = () => sim.ws.sessionList().reduce((n, s) => n + s.cmdIds.length, 0);
  /** Waits until the node has read the frames the server sent so far (each change below sends one). */
  const read = async (before: number, n = 1) =>
    waitFor(() => hub().stats.messages >= before + n, 5000, 'the change read by the node');
  const frames = () => hub().stats.messages;
  /** The trigger shows its count: its entities were judged. */
  const judged = (fill = 'green') =>
    waitFor(() => statuses('tr').some((s) => s.text === key('triggerTrue') && s.fill === fill), 5000, `${fill} count`);

  const warm = (extra: Rec = {}) => ({
    keyType: 'TIME_SERIES',
    key: 'temperature',
    operator: 'gt',
    value: '25',
    valueType: 'num',
    ...extra,
  });
  /** A trigger node "tr": became true to helper "out", became false to helper "off". */
  const trigger = (props: Rec = {}): Rec => ({
    id: 'tr',
    type: 'tb-trigger',
    connection: 'c1',
    watch: 'entity',
    targetType: 'json',
    target: '',
    condition: 'value',
    conditions: [warm()],
    join: 'all',
    holdFor: '0',
    holdOffFor: '0',
    repeatEvery: '',
    repeatMax: '',
    sendInitial: false,
    maxEntities: 10000,
    wires: [['out'], ['off']],
    ...props,
  });
  const on = (e: { entityType: string; id: string } | Array<{ entityType: string; id: string }>) => ({
    target: JSON.stringify(e),
  });
  let out: Outputs;
  const load = async (nodes: Rec[], extra: Rec[] = []) => {
    await helper.unload();
    await helper.load(
      NODES,
      flow(
        connectionNode(sim.url),
        ...nodes,
        { id: 'off', type: 'helper', z: 't', x: 300, y: 300, wires: [] },
        ...extra,
      ),
      { c1: TENANT },
    );
    out = new Outputs();
  };
  /** The query of the probes of a type: every device of it, dynamic (devices come and go). */
  const probesQuery = (type: string, extra: Rec = {}) =>
    JSON.stringify({
      entityFilter: { type: 'deviceType', deviceTypes: [type] },
      entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
      latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
      pageLink: { page: 0, pageSize: 100, dynamic: true },
      ...extra,
    });

  /** The node saw its socket go down (its status says it reconnects). */
  const reconnecting = () =>
    waitFor(() => statuses('tr').some((s) => s.text === key('reconnecting')), 5000, 'the drop noticed');
  /** Fake timers from now on; the node's one timer is armed after this (the entities are judged after). */
  const fake = () => (clock = fakeTimers());
  const tick = (ms: number) => (clock as sinon.SinonFakeTimers).tickAsync(ms);

  describe('held for a while', () => {
    it('true only once held for 10 min (nothing at 9:59), with the entity, its values and since; false at once', async () => {
      const e = probe(20);
      await load([trigger({ ...on(e), holdFor: '10m' })]);
      await judged();
      fake();
      const t0 = Date.now();
      const f = frames();
      setT(e, 26.1);
      await read(f);
      await tick(10 * MIN - 1);
      assert.deepEqual(out.topics(), []);
      await tick(1);
      const o = await out.nth(0);
      assert.equal(o.port, 'true');
      assert.deepEqual(o.msg.entity, e);
      assert.match(String(o.msg.topic), /^true: temperature 26\.1 held 10 min \(Trigger probe \d+\)$/);
      const p = o.msg.payload as Rec;
      assert.deepEqual(Object.keys(p), [
        'state',
        'event',
        'name',
        'values',
        'value',
        'since',
        'heldFor',
        'previous',
        'repeat',
      ]);
      assert.deepEqual(
        [p.state, p.event, p.value, p.values, p.since, p.heldFor, p.repeat],
        [true, 'true', 26.1, { temperature: 26.1 }, t0, 10 * MIN, 0],
      );
      assert.equal((p.previous as Rec).state, false);
      await judged('blue');
      setT(e, 24);
      const off = await out.nth(1);
      assert.equal(off.port, 'false');
      assert.deepEqual(off.msg.entity, e);
      assert.deepEqual(
        [(off.msg.payload as Rec).heldFor, (off.msg.payload as Rec).since, (off.msg.payload as Rec).previous],
        [10 * MIN, t0 + 10 * MIN, { state: true, since: t0 + 10 * MIN }],
      );
      assert.match(String(off.msg.topic), /^false: temperature 24, held 10 min/);
      await waitFor(() => statuses('tr').slice(-1)[0].fill === 'green', 5000, 'the count back to none');
    });

    it('a flap before the hold is over starts it again: nothing at 10 min, true 10 min after the last start', async () => {
      const e = probe(26);
      await load([trigger({ ...on(e), holdFor: '10m' })]);
      await judged();
      fake();
      // holding since the deploy (the timer armed then is a real one): a change now starts a hold on the fake clock
      let f = frames();
      setT(e, 20);
      await read(f);
      await tick(MIN);
      f = frames();
      setT(e, 27);
      await read(f);
      await tick(4 * MIN);
      f = frames();
      setT(e, 24);
      await read(f);
      await tick(MIN);
      f = frames();
      setT(e, 28);
      await read(f);
      await tick(10 * MIN - 1);
      assert.deepEqual(out.topics(), [], 'nothing: no run of 10 min yet');
      await tick(1);
      assert.match((await out.nth(0)).msg.topic as string, /^true: temperature 28 held 10 min/);
    });

    it('hold-off: a cold minute within it sends nothing; reminders every 5 min, at most 2', async () => {
      const e = probe(20);
      await load([trigger({ ...on(e), holdOffFor: '2m', repeatEvery: '5m', repeatMax: 2 })]);
      await judged();
      fake();
      let f = frames();
      setT(e, 26);
      await read(f);
      assert.equal((await out.nth(0)).port, 'true', 'no hold: at once');
      await tick(11 * MIN);
      f = frames();
      setT(e, 24); // cold, within the hold-off
      await read(f);
      await tick(MIN);
      f = frames();
      setT(e, 26);
      await read(f);
      await tick(10 * MIN);
      assert.deepEqual(
        out.all.map((o) => [o.port, (o.msg.payload as Rec).event, (o.msg.payload as Rec).repeat]),
        [
          ['true', 'true', 0],
          ['true', 'repeat', 1],
          ['true', 'repeat', 2],
        ],
      );
      assert.match(out.all[2].msg.topic as string, /^still true: temperature 26 for 10 min, reminder 2/);
      f = frames();
      setT(e, 22);
      await read(f);
      await tick(2 * MIN - 1);
      assert.equal(out.all.length, 3);
      await tick(1);
      const off = await out.nth(3);
      assert.equal(off.port, 'false');
      assert.equal(
        (off.msg.payload as Rec).heldFor,
        22 * MIN,
        'held from 0 to 22 min (the cold minute counts as held)',
      );
    });

    it('several conditions: all of them, or any', async () => {
      const e = probe(26);
      sim.data.setTelemetry(e.id, { humidity: 50 }, Date.now());
      const dry = warm({ key: 'humidity', operator: 'lt', value: '30' });
      await load([
        trigger({ ...on(e), conditions: [warm(), dry], join: 'all' }),
        trigger({ id: 'any', ...on(e), conditions: [warm(), dry], join: 'any', wires: [['out'], ['off']] }),
      ]);
      const o = await out.nth(0);
      assert.match(o.msg.topic as string, /^true: temperature 26, humidity 50/);
      assert.deepEqual((o.msg.payload as Rec).values, { temperature: 26, humidity: 50 });
      sim.data.setTelemetry(e.id, { humidity: 20 }, Date.now());
      const both = await out.nth(1);
      assert.equal(both.port, 'true');
      assert.deepEqual((both.msg.payload as Rec).values, { temperature: 26, humidity: 20 });
      setT(e, 10);
      await waitFor(() => out.all.length === 3);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        out.all.map((x) => x.port),
        ['true', 'true', 'false'],
        '"all" turned false; "any" still holds by the humidity',
      );
    });
  });

  describe('reconnects: the fresh answer decides', () => {
    it('a reconnect during a hold, the value unchanged: true at the end of the hold, as without it', async () => {
      const e = probe(20);
      await load([trigger({ ...on(e), holdFor: '10m' })]);
      await judged();
      fake();
      const f = frames();
      setT(e, 26);
      await read(f);
      await tick(3 * MIN);
      const sockets = sim.ws.connections().total;
      sim.ws.dropAll();
      await reconnecting();
      await tick(200);
      await waitFor(() => sim.ws.connections().total === sockets + 1 && serverSubs() === 1, 5000, 'the reconnect');
      await judged('green');
      await tick(7 * MIN - 201);
      assert.deepEqual(out.topics(), []);
      await tick(1);
      const o = await out.nth(0);
      assert.equal((o.msg.payload as Rec).heldFor, 10 * MIN, 'the hold counted from the change, not the reconnect');
    });

    it('down when the hold ends: nothing until the fresh answer, which finds it unchanged: true then', async () => {
      const e = probe(20);
      await load([trigger({ ...on(e), holdFor: '10m' })]);
      await judged();
      fake();
      const f = frames();
      setT(e, 26);
      await read(f);
      await tick(9 * MIN);
      sim.ws.pauseFrames(true); // the server answers nothing: the reconnect gets no fresh answer yet
      sim.ws.dropAll();
      await reconnecting();
      await tick(2 * MIN);
      assert.deepEqual(out.topics(), [], 'the hold ended while down: put off');
      sim.ws.pauseFrames(false);
      // The socket comes back on the fake clock (its backoff, the server's own timers): time goes on until it has.
      const paused = Date.now();
      for (let i = 0; i < 300 && out.all.length === 0; i++) {
        await tick(S);
        await new Promise((r) => realTimers.setTimeout(r, 5));
      }
      const o = await out.nth(0);
      assert.equal(o.port, 'true');
      const held = (o.msg.payload as Rec).heldFor as number;
      assert.ok(held >= 11 * MIN && held <= Date.now() - paused + 11 * MIN, `held from the change (${held} ms)`);
    });

    it('changed while down (cold again): the fresh answer gives the hold up, nothing is sent', async () => {
      const e = probe(20);
      await load([trigger({ ...on(e), holdFor: '10m' })]);
      await judged();
      fake();
      const f = frames();
      setT(e, 26);
      await read(f);
      await tick(3 * MIN);
      sim.ws.pauseFrames(true);
      setT(e, 21); // never sent on this socket
      sim.ws.dropAll();
      sim.ws.pauseFrames(false);
      await reconnecting();
      await tick(200);
      await waitFor(() => serverSubs() === 1, 5000, 'the reconnect');
      await tick(20 * MIN);
      await new Promise((r) => realTimers.setTimeout(r, 50));
      assert.deepEqual(out.topics(), []);
    });
  });

  describe('a query whose list changes (dynamic)', () => {
    it('a device added while others are held is held from then; one removed while holding sends nothing, while true a false', async () => {
      const type = 'trigger-dyn-1';
      const a = probe(26, type);
      const b = probe(20, type);
      await load([
        trigger({ watch: 'query', target: '', targetType: 'auto', query: probesQuery(type), holdFor: '10m' }),
      ]);
      await judged();
      fake();
      // a is holding since the deploy (on the real clock): restart its hold on the fake one
      let f = frames();
      setT(a, 20);
      await read(f);
      setT(a, 27);
      await read(f, 2);
      await tick(2 * MIN);
      f = frames();
      const c = probe(30, type); // comes into the list at the next re-query
      await read(f);
      await tick(2 * MIN);
      f = frames();
      sim.data.removeEntity(a.id); // leaves the list while holding
      await read(f);
      await tick(6 * MIN);
      assert.deepEqual(out.topics(), [], 'a left before its hold was over');
      await tick(2 * MIN);
      const o = await out.nth(0);
      assert.deepEqual(o.msg.entity, c);
      assert.equal((o.msg.payload as Rec).heldFor, 10 * MIN);
      f = frames();
      setT(b, 26);
      await read(f);
      sim.data.removeEntity(c.id); // leaves the list while true
      const off = await out.nth(1);
      assert.equal(off.port, 'false');
      assert.deepEqual(off.msg.entity, c);
      assert.equal((off.msg.payload as Rec).removed, true);
      assert.match(off.msg.topic as string, /^false: no longer watched \(Trigger probe \d+\)$/);
      await tick(10 * MIN);
      const bTrue = await out.nth(2);
      assert.deepEqual(bTrue.msg.entity, b);
    });

    it('the state of every entity at start, once: true ones on output 1 (their hold not waited for), others on 2', async () => {
      const type = 'trigger-initial';
      const warmOnes = [probe(26, type), probe(27, type)];
      const cold = probe(20, type);
      await load([
        trigger({
          watch: 'query',
          targetType: 'auto',
          query: probesQuery(type),
          holdFor: '10m',
          sendInitial: true,
        }),
      ]);
      await out.nth(2);
      const byPort = (port: Port) =>
        out.all
          .filter((o) => o.port === port)
          .map((o) => (o.msg.entity as Rec).id)
          .sort();
      assert.deepEqual(byPort('true'), warmOnes.map((e) => e.id).sort());
      assert.deepEqual(byPort('false'), [cold.id]);
      assert.ok(
        out.all.every((o) => (o.msg.payload as Rec).event === 'initial' && (o.msg.payload as Rec).previous === null),
      );
      assert.match(out.all.find((o) => o.port === 'false')?.msg.topic as string, /^now false: temperature 20/);
      await judged('blue');
    });
    it('a query from the message: started by it, the same one again changes nothing, another replaces it', async () => {
      const type = 'trigger-bound';
      const a = probe(26, type);
      const other = 'trigger-bound-2';
      const b = probe(27, other);
      await load([trigger({ watch: 'query', targetType: 'auto', queryType: 'msg', query: 'payload' })]);
      await waitFor(() => statuses('tr').some((s) => s.text === key('idle')));
      inject('tr', { payload: JSON.parse(probesQuery(type)) });
      const first = await out.nth(0);
      assert.deepEqual([first.port, first.msg.entity], ['true', a]);
      inject('tr', { payload: JSON.parse(probesQuery(type)) });
      inject('tr', { payload: JSON.parse(probesQuery(other)) });
      // the first list is left (a, true, is said false), the second one watched (b, true)
      const left = await out.nth(1);
      assert.deepEqual([left.port, left.msg.entity, (left.msg.payload as Rec).removed], ['false', a, true]);
      const next = await out.nth(2);
      assert.deepEqual([next.port, next.msg.entity], ['true', b]);
      assert.equal(out.all.length, 3, 'the same query again sent nothing');
      inject('tr', { action: 'unwatch' });
      const off = await out.nth(3);
      assert.deepEqual([off.port, off.msg.entity], ['false', b]);
      await waitFor(() => serverSubs() === 0, 5000, 'nothing subscribed');
    });
  });

  describe('entities named by messages', () => {
    const byMessage = (props: Rec = {}) =>
      trigger({
        watch: 'message',
        targetType: 'auto',
        target: '',
        conditions: [warm({ value: 'threshold', valueType: 'msg' })],
        ...props,
      });

    it("watch with the message's threshold, unwatch: a true one is said false; a bad threshold goes to Catch", async () => {
      await load([byMessage()]);
      await waitFor(() => statuses('tr').some((s) => s.text === key('idle')));
      const e = probe(26);
      inject('tr', { entity: e, threshold: 25 });
      const o = await out.nth(0);
      assert.equal(o.port, 'true');
      assert.deepEqual(o.msg.entity, e);
      const cool = probe(24);
      inject('tr', { entity: cool, threshold: 23.5 }); // its own threshold
      assert.deepEqual((await out.nth(1)).msg.entity, cool);
      inject('tr', { entity: e, action: 'unwatch' });
      const off = await out.nth(2);
      assert.deepEqual([off.port, (off.msg.payload as Rec).removed], ['false', true]);
      inject('tr', { entity: probe(1), threshold: 'warm' });
      const err = await out.nth(3);
      assert.equal(err.port, 'error');
      assert.match(String((err.msg.error as Rec).message), /threshold must be a number/);
      inject('tr', { entity: e, action: 'stop' });
      assert.match(String(((await out.nth(4)).msg.error as Rec).message), /msg\.action must be "watch" or "unwatch"/);
    });

    it('a {{msg.…}} placeholder in the value: read from each message, as a value from the message is', async () => {
      await load([byMessage({ conditions: [warm({ value: '{{msg.limit}}', valueType: 'str' })] })]);
      await waitFor(() => statuses('tr').some((s) => s.text === key('idle')));
      const cool = probe(24);
      inject('tr', { entity: cool, limit: 23 }); // 24 > 23: true at once (no hold)
      const o = await out.nth(0);
      assert.deepEqual([o.port, o.msg.entity], ['true', cool]);
      const e = probe(26);
      inject('tr', { entity: e, limit: '25.5' }); // a number written as text compares as the number
      assert.deepEqual((await out.nth(1)).msg.entity, e);
      inject('tr', { entity: probe(1), limit: 'warm' });
      const err = await out.nth(2);
      assert.equal(err.port, 'error');
      assert.match(String((err.msg.error as Rec).message), /must be a number/);
    });

    it('no more than Max entities', async () => {
      await load([byMessage({ maxEntities: 2 })]);
      inject('tr', { entity: [probe(1), probe(2)], threshold: 25 });
      await judged();
      inject('tr', { entity: probe(3), threshold: 25 });
      const err = await out.nth(0);
      assert.match(String((err.msg.error as Rec).message), /already watches 2 entities; 1 more would pass its limit/);
    });

    it('a device gone silent for 1 h: true 1 h after its last update, false at its next', async () => {
      await load([
        trigger({
          watch: 'message',
          targetType: 'auto',
          condition: 'silence',
          silenceKeys: 'temperature',
          silentFor: '1h',
          conditions: [],
        }),
      ]);
      fake();
      const e = probe(20); // its last update: now
      inject('tr', { entity: e });
      await judged();
      await tick(30 * MIN);
      let f = frames();
      setT(e, 21);
      await read(f);
      await tick(60 * MIN - 1);
      assert.deepEqual(out.topics(), []);
      await tick(1);
      const o = await out.nth(0);
      assert.match(o.msg.topic as string, /^true: silent 1 h \(Trigger probe/);
      assert.equal((o.msg.payload as Rec).lastUpdate, Date.now() - 60 * MIN);
      await tick(5 * MIN);
      f = frames();
      setT(e, 22);
      const off = await out.nth(1);
      assert.equal(off.port, 'false');
      assert.deepEqual((off.msg.payload as Rec).values, { temperature: 22 });
      assert.ok(frames() > f);
    });
  });

  describe('alarms', () => {
    const alarmTrigger = (e: Rec, props: Rec = {}) =>
      trigger({
        ...on(e as { entityType: string; id: string }),
        condition: 'alarm',
        conditions: [],
        alarmType: 'Overheat',
        alarmState: 'unacknowledged',
        holdFor: '15m',
        ...props,
      });

    it('acknowledged within 15 min: no message; not acknowledged: the message once, then false when acknowledged', async () => {
      const e = probe(20);
      await load([alarmTrigger(e)]);
      await judged();
      fake();
      let f = frames();
      const first = sim.data.createAlarm({ originator: e, type: 'Overheat', severity: 'CRITICAL' });
      await read(f);
      await tick(10 * MIN);
      f = frames();
      sim.data.ackAlarm(first.id);
      await read(f);
      await tick(10 * MIN);
      assert.deepEqual(out.topics(), [], 'acknowledged in time');
      f = frames();
      sim.data.clearAlarm(first.id);
      const second = sim.data.createAlarm({ originator: e, type: 'Overheat', severity: 'MAJOR' });
      await read(f);
      await tick(15 * MIN);
      const o = await out.nth(0);
      assert.equal(o.port, 'true');
      assert.match(o.msg.topic as string, /^true: alarm Overheat \(MAJOR\) held 15 min/);
      const alarm = (o.msg.payload as Rec).alarm as Rec;
      assert.deepEqual([alarm.id, alarm.type, alarm.severity], [second.id, 'Overheat', 'MAJOR']);
      await tick(60 * MIN);
      assert.equal(out.all.length, 1, 'once');
      sim.data.ackAlarm(second.id);
      const off = await out.nth(1);
      assert.equal(off.port, 'false');
      assert.equal((off.msg.payload as Rec).alarm, null);
    });

    it('only the severities asked, only the type asked; "active" counts an acknowledged alarm until cleared', async () => {
      const e = probe(20);
      await load([alarmTrigger(e, { severities: 'CRITICAL', alarmState: 'active', holdFor: '0' })]);
      await judged();
      sim.data.createAlarm({ originator: e, type: 'Overheat', severity: 'MINOR' });
      sim.data.createAlarm({ originator: e, type: 'Door open', severity: 'CRITICAL' });
      const c = sim.data.createAlarm({ originator: e, type: 'Overheat', severity: 'CRITICAL' });
      const o = await out.nth(0);
      assert.equal(((o.msg.payload as Rec).alarm as Rec).id, c.id);
      sim.data.ackAlarm(c.id);
      sim.data.clearAlarm(c.id);
      const off = await out.nth(1);
      assert.equal(off.port, 'false');
      assert.equal(out.all.length, 2);
    });
  });

  describe('msg.reset, redeploys', () => {
    it('msg.reset: nothing sent; an entity still warm is held again from the reset', async () => {
      const e = probe(20);
      const other = probe(20);
      await load([trigger({ ...on([e, other]), holdFor: '10m' })]);
      await judged();
      fake();
      const f = frames();
      setT(e, 26);
      setT(other, 26);
      await read(f, 2);
      await tick(10 * MIN);
      await out.nth(1);
      await tick(MIN);
      inject('tr', { reset: true, entity: e });
      await waitFor(() => statuses('tr').slice(-1)[0].fill === 'blue');
      await tick(10 * MIN - 1);
      assert.equal(out.all.length, 2, 'nothing for the reset');
      await tick(1);
      const again = await out.nth(2);
      assert.deepEqual(again.msg.entity, e);
      assert.equal((again.msg.payload as Rec).since, Date.now() - 10 * MIN, 'held from the reset');
      inject('tr', { reset: true });
      await tick(10 * MIN);
      assert.equal((await out.nth(4)).port, 'true');
      assert.equal(out.all.length, 5, 'both again after a reset of all');
    });

    it('a redeploy of this node starts over and says so; a redeploy of another flow does not touch it', async () => {
      const e = probe(20);
      const other = { id: 't2', type: 'tab', label: 'other' };
      const inj = (name: string) => ({ id: 'i2', type: 'helper', z: 't2', name, x: 100, y: 100, wires: [] });
      const flows = (tr: Rec, name: string) => [
        ...(flow(connectionNode(sim.url), tr, {
          id: 'off',
          type: 'helper',
          z: 't',
          x: 300,
          y: 300,
          wires: [],
        }) as Rec[]),
        other,
        inj(name),
      ];
      await helper.unload();
      await helper.load(NODES, flows(trigger({ ...on(e), holdFor: '10m' }), 'one') as never, { c1: TENANT });
      out = new Outputs();
      await judged();
      const warned = warningsOf('tr').length; // the previous test's node had the same id
      fake();
      const f = frames();
      setT(e, 26);
      await read(f);
      await tick(5 * MIN);
      // another tab changes: the trigger goes on, its hold with it
      await helper.setFlows(flows(trigger({ ...on(e), holdFor: '10m' }), 'two') as never, 'flows', {
        c1: TENANT,
      } as never);
      await tick(5 * MIN);
      const o = await out.nth(0);
      assert.equal((o.msg.payload as Rec).heldFor, 10 * MIN);
      assert.equal(warningsOf('tr').length, warned, 'not redeployed: no warning');
      // the trigger itself changes: it starts over, and says so
      await helper.setFlows(flows(trigger({ ...on(e), holdFor: '10m', name: 'renamed' }), 'two') as never, 'nodes', {
        c1: TENANT,
      } as never);
      await waitFor(() => warningsOf('tr').length > 0, 5000, 'the warning');
      assert.match(
        warningsOf('tr').slice(-1)[0],
        /^Redeployed: this trigger starts over \(1 true and 0 holding were forgotten/,
      );
      out = new Outputs();
      await judged();
      assert.equal(out.all.length, 0, 'still warm: nothing sent at the redeploy');
      await tick(10 * MIN);
      const again = await out.nth(0);
      assert.equal((again.msg.payload as Rec).heldFor, 10 * MIN, 'held again from the redeploy');
    });
  });

  describe('bad input', () => {
    it('at deploy: a red status, the setting named, every message refused to Catch', async () => {
      const e = probe(20);
      const cases: Array<[Rec, RegExp]> = [
        [{ ...on(e), holdFor: 'ten minutes' }, /^TbConfigError: holdFor must be a duration such as 30s, 15m, 2h/],
        [{ ...on(e), conditions: [warm({ key: '' })] }, /^TbConfigError: conditions row 1 has no key/],
        [
          { ...on(e), conditions: [warm({ value: 'warm', valueType: 'str' })] },
          /conditions row 1 \(temperature\) must be a number/,
        ],
        [{ ...on(e), conditions: [warm({ operator: 'changes' })] }, /choose a comparison/],
        [{ targetType: 'json', target: '' }, /^TbConfigError: target: pick the entity to watch/],
        [
          { ...on(e), conditions: [warm({ value: 'limit', valueType: 'msg' })] },
          /its value is read from the message, but this trigger starts at deploy/,
        ],
      ];
      for (const [props, re] of cases) {
        await load([trigger(props)]);
        await waitFor(() => statuses('tr').some((s) => s.fill === 'red' && s.shape === 'dot'), 5000, 'red');
        inject('tr', { reset: true });
        const err = await out.nth(0);
        assert.equal(err.port, 'error');
        assert.match(String((err.msg.error as Rec).message), re);
        assert.equal(serverSubs(), 0, 'nothing subscribed');
      }
    });

    it('a message to a trigger that watches from deploy: only msg.reset', async () => {
      await load([trigger(on(probe(20)))]);
      await judged();
      inject('tr', { entity: probe(1) });
      const err = await out.nth(0);
      assert.match(
        String((err.msg.error as Rec).message),
        /watches its entities from deploy: a message can only reset it/,
      );
    });
  });
});
