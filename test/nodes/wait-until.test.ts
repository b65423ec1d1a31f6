/**
 * tb-wait-until in the real Node-RED runtime against the simulator's WebSocket over loopback: every condition and
 * comparator, the value sources, the current value checked or not, all/any over a list, the timeout, reset and
 * restart, a reconnect during a wait, a redeploy during 100 waits, bad input, alarm waits, the limit of waits, and one
 * subscription per entity however many waits.
 */
import assert from 'node:assert/strict';
import type { Node } from 'node-red';
import { BASE_TIME, HOUR } from '../../sim';
import type { TbConnectionNode } from '../../src/node-red/connection';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbWaitUntil from '../../src/nodes/tb-wait-until/index';
import {
  assertCode,
  connectionNode,
  flow,
  helper,
  inject,
  key,
  lastStatus,
  messages,
  statuses,
  TENANT,
  useRuntime,
  type Msg,
  type Rec,
} from '../support/runtime';
import { fakeTimers, realTimers, waitFor } from '../support/wait';

const NODES = [tbConnection, tbWaitUntil];
const NOW = BASE_TIME + HOUR;

/** A wait node: "met" to helper "out", "timed out" to helper "late". */
function waiter(props: Rec = {}): Rec {
  return {
    id: 'w',
    type: 'tb-wait-until',
    connection: 'c1',
    waitFor: 'value',
    keyType: 'TIME_SERIES',
    key: 'temperature',
    operator: 'eq',
    value: '',
    valueType: 'str',
    listMode: 'all',
    checkCurrent: true,
    timeout: '5s',
    maxWaits: '',
    wires: [['out'], ['late']],
    ...props,
  };
}

/** What leaves the node: each message with its port ("met" / "late") or the error caught. */
class Outputs {
  readonly all: Array<{ port: 'met' | 'late' | 'error'; msg: Msg }> = [];
  private waiters: Array<(n: number) => void> = [];

  constructor() {
    for (const [id, port] of [
      ['out', 'met'],
      ['late', 'late'],
      ['caught', 'error'],
    ] as const) {
      (helper.getNode(id) as unknown as Node).on('input', (msg: Msg) => {
        this.all.push({ port, msg });
        for (const w of this.waiters.splice(0)) w(this.all.length);
      });
    }
  }

  /** The next output after the `n` first (rejects after `ms` of real time, also under fake timers). */
  async nth(n: number, ms = 8000): Promise<{ port: 'met' | 'late' | 'error'; msg: Msg }> {
    const end = performance.now() + ms;
    while (this.all.length <= n) {
      const left = end - performance.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for output #${n + 1} (got ${this.all.length}: ${this.all.map((o) => o.port).join(', ')})`,
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

  /** The next output from now on. */
  next(ms?: number): Promise<{ port: 'met' | 'late' | 'error'; msg: Msg }> {
    return this.nth(this.all.length, ms);
  }
}

describe('tb-wait-until (runtime + simulator WebSocket)', function () {
  const sim = useRuntime(
    { now: () => NOW },
    { settings: { tbConnectionReconnectInitialMs: 20, tbConnectionReconnectMaxMs: 200 } },
  );
  afterEach(() => sim.ws.pauseFrames(false));
  let ts = NOW;
  const nextTs = () => ++ts;
  let probes = 0;
  /** A fresh device (no history of other tests), with a temperature when given. */
  const probe = (temperature?: unknown) => {
    const e = sim.data.addEntity({ entityType: 'DEVICE', name: `Wait probe ${++probes}`, type: 'thermostat' });
    if (temperature !== undefined) sim.data.setTelemetry(e.id, { temperature: temperature as number }, nextTs());
    return { entityType: 'DEVICE', id: e.id };
  };
  const setT = (e: { id: string }, v: unknown) => sim.data.setTelemetry(e.id, { temperature: v as number }, nextTs());
  let out: Outputs;
  const load = async (nodes: Rec[], extra: Rec[] = []) => {
    await helper.unload();
    await helper.load(
      NODES,
      flow(
        connectionNode(sim.url),
        ...nodes,
        { id: 'late', type: 'helper', z: 't', x: 300, y: 300, wires: [] },
        ...extra,
      ),
      { c1: TENANT },
    );
    out = new Outputs();
  };
  const hub = () => (helper.getNode('c1') as unknown as TbConnectionNode).live();
  /**
   * Every frame the server sent before now has been handled, and whatever the node sent on because of it has come
   * out: a new wait of node "w" on a fresh device whose current value (`value`) meets its condition at once is met
   * by the first answer of its own subscription, which the server sends after those frames on the one socket; the
   * node handles frames, and Node-RED delivers messages, in order. Checks that its output is the next one.
   */
  const handled = async (value: unknown): Promise<void> => {
    const n = out.all.length;
    inject('w', { entity: probe(value), barrier: true });
    const o = await out.nth(n);
    assert.deepEqual([o.port, o.msg.barrier], ['met', true], 'nothing came out before the new wait was met');
  };
  /** Subscriptions the server holds (every session's cmdIds). */
  const serverSubs = () => sim.ws.sessionList().reduce((n, s) => n + s.cmdIds.length, 0);
  const subscribed = (n: number) => waitFor(() => serverSubs() === n);
  /** Node "w" has shown this status (now or before). */
  const showed = (k: string, fill?: string) =>
    waitFor(() => statuses('w').some((s) => s.text === key(k) && (!fill || s.fill === fill)));

  describe('conditions', () => {
    it('met at once by the current value: msg.waited = { met, value, ts, ms, entity } on output 1, the message kept', async () => {
      await load([waiter({ value: '21.5' })]);
      const e = probe(21.5);
      inject('w', { entity: e, payload: 'keep', topic: 'x' });
      const o = await out.next();
      assert.equal(o.port, 'met');
      assert.equal(o.msg.payload, 'keep');
      const w = o.msg.waited as Rec;
      assert.deepEqual(Object.keys(w), ['met', 'value', 'ts', 'ms', 'entity']);
      assert.equal(w.met, true);
      assert.equal(w.value, 21.5);
      assert.equal(w.ts, ts);
      assert.deepEqual(w.entity, e);
      assert.ok(typeof w.ms === 'number' && w.ms >= 0 && w.ms < 5000);
      await showed('waitMet', 'green');
      await subscribed(0);
    });

    it('checkCurrent off: the value already there does not count, the next change that meets does', async () => {
      await load([waiter({ value: '21.5', checkCurrent: false })]);
      const e = probe(21.5);
      inject('w', { entity: e });
      await showed('waiting');
      await subscribed(1);
      setT(e, 20);
      setT(e, 21.5);
      const o = await out.next();
      assert.equal(o.port, 'met');
      assert.equal((o.msg.waited as Rec).value, 21.5);
      assert.equal((o.msg.waited as Rec).ts, ts);
    });

    // [operator, compared value (valueType), current value, value that meets it next or null]
    const CASES: Array<[string, string, string, unknown, unknown, unknown]> = [
      ['eq', '21', 'num', 20, 21, 'met at once'],
      ['eq', 'on', 'str', 'off', 'on', null],
      ['eq', '"21.0"', 'json', 20, 21, null],
      ['neq', '20', 'num', 20, 20.5, null],
      ['lt', '10', 'num', 12, 9.5, null],
      ['lte', '10', 'str', 12, 10, null],
      ['gt', '25', 'str', 24, 25.5, null],
      ['gte', '25', 'num', 24, 25, null],
      ['in', "'idle', 'off'", 'str', 'on', 'off', null],
      ['in', 'idle, "off"', 'str', 'on', '"off"', null],
      ['in', '[1,2,3]', 'json', 5, 3, null],
      ['nin', 'on,boost', 'str', 'on', 'eco', null],
      ['changes', '', 'str', 20, 20.5, null],
      ['jsonata', 'value > 21 and entity.entityType = "DEVICE" and ts > 0', 'jsonata', 21, 22, null],
    ];
    for (const [op, value, valueType, start, then] of CASES) {
      it(`${op} ${value} (${valueType}): not met by ${JSON.stringify(start)}, met by ${JSON.stringify(then)}`, async () => {
        await load([waiter({ operator: op, value, valueType })]);
        const e = probe(start);
        inject('w', { entity: e });
        await subscribed(1);
        setT(e, then);
        // The current value came first on the socket: had it met the condition, the wait would have ended with it.
        const o = await out.next();
        assert.equal(o.port, 'met', JSON.stringify(o.msg.error ?? o.msg.waited));
        assert.deepEqual((o.msg.waited as Rec).value, then, 'the current value does not meet it; the change does');
      });
    }

    it('numeric text compares as a number ("45" > 44), text that is not one never meets an order ("n/a")', async () => {
      await load([
        waiter({ key: 'humidity', operator: 'gt', value: '44', valueType: 'str' }),
        waiter({ id: 'w2', operator: 'gt', value: '1', valueType: 'num', timeout: '150ms' }),
      ]);
      const b102 = { entityType: 'DEVICE', id: sim.data.mustFindByName('DEVICE', 'Thermo B-102').id };
      inject('w', { entity: b102 });
      const o = await out.next();
      assert.equal(o.port, 'met');
      assert.equal((o.msg.waited as Rec).value, 45);
      inject('w2', { entity: b102 });
      const late = await out.next();
      assert.equal(late.port, 'late');
      assert.equal((late.msg.waited as Rec).value, 'n/a');
    });

    it('attributes of the three scopes and an entity field', async () => {
      const a101 = { entityType: 'DEVICE', id: sim.data.mustFindByName('DEVICE', 'Thermo A-101').id };
      await load([
        waiter({ id: 'w1', keyType: 'SERVER_ATTRIBUTE', key: 'active', value: 'true', valueType: 'bool' }),
        waiter({
          id: 'w2',
          keyType: 'SHARED_ATTRIBUTE',
          key: 'targetTemperature',
          operator: 'gte',
          value: '21',
          valueType: 'num',
        }),
        waiter({ id: 'w3', keyType: 'CLIENT_ATTRIBUTE', key: 'fw', value: '1.2.0' }),
        waiter({ id: 'w4', keyType: 'ENTITY_FIELD', key: 'name', value: 'Thermo A-101' }),
      ]);
      for (const id of ['w1', 'w2', 'w3', 'w4']) inject(id, { entity: a101 });
      for (let i = 0; i < 4; i++) assert.equal((await out.nth(i)).port, 'met', JSON.stringify(out.all[i].msg.error));
      assert.deepEqual(
        out.all.map((o) => (o.msg.waited as Rec).value).sort(),
        [1, 21, '1.2.0', 'Thermo A-101', true].filter((v) => v !== 1).sort(),
      );
      // an attribute written while waiting
      await load([waiter({ keyType: 'SHARED_ATTRIBUTE', key: 'targetTemperature', value: '23.5', valueType: 'num' })]);
      const e = probe();
      inject('w', { entity: e });
      await subscribed(1);
      sim.data.setAttributes(e.id, 'SHARED_SCOPE', { targetTemperature: 23.5 }, nextTs());
      assert.equal((await out.next()).port, 'met');
    });

    it('the compared value from the message, a placeholder, flow, global, env and JSONata', async () => {
      process.env.TB_WAIT_TARGET = '22';
      await load([
        waiter({ id: 'm', value: 'target', valueType: 'msg' }),
        waiter({ id: 'p', value: '{{msg.target}}', valueType: 'str' }),
        waiter({ id: 'f', value: 'target', valueType: 'flow' }),
        waiter({ id: 'g', value: 'target', valueType: 'global' }),
        waiter({ id: 'v', value: 'TB_WAIT_TARGET', valueType: 'env' }),
        waiter({ id: 'j', value: 'target + 1', valueType: 'jsonata' }),
      ]);
      const n = helper.getNode('m') as unknown as {
        context(): { flow: { set(k: string, v: unknown): void }; global: { set(k: string, v: unknown): void } };
      };
      n.context().flow.set('target', 22);
      n.context().global.set('target', '22');
      const e = probe(22);
      for (const id of ['m', 'p', 'f', 'g', 'v']) inject(id, { entity: e, target: 22 });
      inject('j', { entity: e, target: 21 });
      for (let i = 0; i < 6; i++) assert.equal((await out.nth(i)).port, 'met', JSON.stringify(out.all[i].msg.error));
      delete process.env.TB_WAIT_TARGET;
    });
  });

  describe('lists, timeout, reset, restart', () => {
    it('all: met when every entity met; the output lists each in order', async () => {
      await load([waiter({ operator: 'gte', value: '30', valueType: 'num' })]);
      const a = probe(31);
      const b = probe(20);
      const c = probe(25);
      inject('w', { entity: [a, b, c] });
      await subscribed(3);
      setT(b, 30);
      setT(c, 35);
      // b's change came first: had the wait ended on it (c not met yet), its one output would list c at 25, unmet.
      const o = await out.next();
      assert.equal(o.port, 'met');
      const w = o.msg.waited as { met: boolean; ms: number; entities: Rec[] };
      assert.deepEqual(Object.keys(w), ['met', 'ms', 'entities']);
      assert.deepEqual(
        w.entities.map((x) => [x.entity, x.met, x.value]),
        [
          [a, true, 31],
          [b, true, 30],
          [c, true, 35],
        ],
      );
      assert.deepEqual(Object.keys(w.entities[0]), ['entity', 'met', 'value', 'ts']);
      await subscribed(0);
    });

    it('any: met by the first; the others are listed as not met, with their last value', async () => {
      await load([waiter({ operator: 'gte', value: '30', valueType: 'num', listMode: 'any' })]);
      const a = probe(20);
      const b = probe(21);
      inject('w', { entity: [a, b] });
      await subscribed(2);
      setT(b, 30);
      const o = await out.next();
      const w = o.msg.waited as { met: boolean; entities: Rec[] };
      assert.equal(w.met, true);
      assert.deepEqual(
        w.entities.map((x) => [x.met, x.value]),
        [
          [false, 20],
          [true, 30],
        ],
      );
    });

    it('times out on output 2 with the last value seen; msg.timeout when the setting is empty; never both outputs', async () => {
      await load([waiter({ value: '99', valueType: 'num', timeout: '' })]);
      const e = probe(20);
      // The wait's timer and clock are fake: installed before the message starts them, moved by the test.
      const clock = fakeTimers();
      try {
        inject('w', { entity: e, timeout: 200 });
        await subscribed(1);
        const frames = hub().stats.messages;
        setT(e, 21);
        await waitFor(() => hub().stats.messages > frames, 5000, 'the change read');
        await clock.tickAsync(199);
        assert.equal(out.all.length, 0, 'still waiting after 199 ms');
        await clock.tickAsync(1);
        const o = await out.nth(0);
        assert.equal(o.port, 'late');
        const w = o.msg.waited as Rec;
        assert.equal(w.met, false);
        assert.equal(w.value, 21);
        assert.equal(w.ts, ts);
        assert.equal(w.ms, 200, 'timed out 200 ms after the message');
      } finally {
        clock.restore();
      }
      await showed('waitTimedOut');
      await subscribed(0);
      setT(e, 99);
      await handled(99);
      assert.equal(out.all.length, 2, 'nothing after the timeout');
    });

    it('reset: with an entity cancels its waits, without one all of them; nothing is sent', async () => {
      await load([waiter({ value: '99', valueType: 'num', timeout: '0' })]);
      const a = probe(1);
      const b = probe(2);
      inject('w', { entity: a });
      inject('w', { entity: a });
      inject('w', { entity: b });
      await subscribed(2);
      await showed('waiting');
      inject('w', { reset: true, entity: a });
      await subscribed(1);
      inject('w', { reset: true });
      await subscribed(0);
      await showed('waitCancelled');
      setT(a, 99);
      setT(b, 99);
      await handled(99);
      assert.equal(out.all.length, 1, 'nothing but the new wait');
    });

    it('restart: the waits of that entity are replaced by the new one', async () => {
      // A Complete node tells when a message is done: the two replaced waits end (without output) then.
      const done = { id: 'done', type: 'complete', z: 't', scope: ['w'], uncaught: false, wires: [['completed']] };
      await load(
        [waiter({ value: '99', valueType: 'num', timeout: '0' })],
        [done, { id: 'completed', type: 'helper', z: 't', x: 300, y: 400, wires: [] }],
      );
      const a = probe(1);
      inject('w', { entity: a, n: 1 });
      inject('w', { entity: a, n: 2 });
      await subscribed(1);
      const replaced = messages('completed', 2);
      inject('w', { entity: a, n: 3, restart: true });
      assert.deepEqual(
        (await replaced).map((m) => m.n),
        [1, 2],
      );
      setT(a, 99);
      const o = await out.next();
      assert.equal(o.msg.n, 3);
      await handled(99);
      assert.equal(out.all.length, 2, 'only the restarted wait was met');
    });
  });

  describe('the connection', () => {
    it('many waits on one entity share one subscription', async () => {
      await load([waiter({ value: '99', valueType: 'num', timeout: '0' })]);
      const a = probe(1);
      const before = sim.ws.commandsReceived().length;
      for (let i = 0; i < 5; i++) inject('w', { entity: a });
      await showed('waiting');
      await subscribed(1);
      setT(a, 99);
      for (let i = 0; i < 5; i++) assert.equal((await out.nth(i)).port, 'met');
      // Each wait was met through a subscription: had one of them made its own, the server would have its command.
      const commands = sim.ws
        .commandsReceived()
        .slice(before)
        .filter((c) => c.type === 'ENTITY_DATA' && JSON.stringify(c.cmd).includes(a.id));
      assert.equal(commands.length, 1, 'one subscription for the five waits');
      await subscribed(0);
    });

    it('a change during an outage is met after the reconnect; the timeout keeps counting from the start', async () => {
      await load([waiter({ value: '30', valueType: 'num', timeout: '3s' })]);
      const e = probe(20);
      inject('w', { entity: e });
      await subscribed(1);
      const total = sim.ws.connections().total;
      sim.ws.pauseFrames(true); // the change never reaches the client on this socket
      setT(e, 30);
      sim.ws.dropAll();
      sim.ws.pauseFrames(false);
      const o = await out.next();
      assert.equal(o.port, 'met');
      assert.equal((o.msg.waited as Rec).value, 30);
      assert.equal(sim.ws.connections().total, total + 1, 'reconnected once');
      // met, not timed out: before the 3 s were over (a wait ends once, on one output)

      // the timer is not restarted by the reconnect: the wait's timer and the reconnect's backoff run on the fake
      // clock, installed before the message starts them
      await load([waiter({ value: '99', valueType: 'num', timeout: '600ms' })]);
      const f = probe(1);
      const clock = fakeTimers();
      try {
        inject('w', { entity: f });
        await subscribed(1);
        await clock.tickAsync(300);
        const sockets = sim.ws.connections().total;
        sim.ws.dropAll();
        await showed('reconnecting'); // the backoff has begun: 20 ms, at most 200
        await clock.tickAsync(200);
        await waitFor(() => sim.ws.connections().total === sockets + 1 && serverSubs() === 1, 5000, 'the reconnect');
        await clock.tickAsync(99);
        assert.equal(out.all.length, 0, 'still waiting 599 ms after the message');
        await clock.tickAsync(1);
        const late = await out.nth(0);
        assert.equal(late.port, 'late');
        assert.equal((late.msg.waited as Rec).ms, 600, 'timed out 600 ms after the message, not after the reconnect');
      } finally {
        clock.restore();
      }
    });

    it('a redeploy during 100 waits ends every wait and timer, sends nothing, leaves no subscription', async () => {
      await load([waiter({ value: '99', valueType: 'num', timeout: '400ms' })]);
      const entities = Array.from({ length: 20 }, () => probe(1));
      // The waits' timers are fake (installed before the messages start them): the clock counts them.
      const clock = fakeTimers();
      try {
        const before = clock.countTimers();
        for (let i = 0; i < 100; i++) inject('w', { entity: entities[i % 20] });
        await showed('waiting');
        await subscribed(20);
        await waitFor(() => clock.countTimers() >= before + 100, 5000, 'a timer per wait');
        await helper.setFlows(
          flow(connectionNode(sim.url), { id: 'late', type: 'helper', z: 't', x: 300, y: 300, wires: [] }) as never,
          'nodes',
        );
        await subscribed(0);
        assert.equal(clock.countTimers(), before, 'no timer left');
        await clock.tickAsync(600); // past every timeout: nothing is left to fire
      } finally {
        clock.restore();
      }
      assert.equal(out.all.length, 0, 'nothing sent, nothing caught');
    });
  });

  describe('bad input: an error at Catch, nothing subscribed', () => {
    it('settings: an unknown key type, ">" on a non-number, a bad JSONata', async () => {
      await load([
        waiter({ keyType: 'LATEST' }),
        waiter({ id: 'w2', operator: 'gt', value: 'warm' }),
        waiter({ id: 'w3', operator: 'jsonata', value: 'value >' }),
      ]);
      const e = probe(1);
      inject('w', { entity: e });
      inject('w2', { entity: e });
      inject('w3', { entity: e });
      const errs = [await out.nth(0), await out.nth(1), await out.nth(2)].map((o) => o.msg.error as Rec);
      for (const err of errs) assertCode(err, 'TB_CONFIG');
      assert.match(
        errs[0].message as string,
        /keyType must be one of TIME_SERIES, SERVER_ATTRIBUTE, SHARED_ATTRIBUTE, CLIENT_ATTRIBUTE, ENTITY_FIELD \(got "LATEST"\)/,
      );
      assert.match(
        errs[1].message as string,
        /value must be a number, or a text that is one such as "21", for ">".*"warm"/,
      );
      assert.match(errs[2].message as string, /JSONata condition/);
      assert.equal(serverSubs(), 0);
      assert.equal(lastStatus('w')?.fill, 'red');
    });

    it('messages: an entity that is not one, a timeout that is not a duration, ">" on a non-number from the message, an unknown entity', async () => {
      await load([waiter({ operator: 'gt', value: 'limit', valueType: 'msg', timeout: '' })]);
      const e = probe(1);
      const cases: Array<[Rec, string, RegExp]> = [
        [{ entity: 'nope', limit: 1 }, 'TB_INVALID_INPUT', /msg\.entity must be an entity/],
        [{ entity: e, limit: 1, timeout: 'soon' }, 'TB_INVALID_INPUT', /msg\.timeout must be a duration.*"soon"/],
        [{ entity: e, limit: 'warm' }, 'TB_INVALID_INPUT', /msg\.limit must be a number.*"warm"/],
        [{ entity: e }, 'TB_INVALID_INPUT', /msg\.limit is missing/],
      ];
      for (let i = 0; i < cases.length; i++) {
        inject('w', cases[i][0]);
        const o = await out.nth(i);
        assert.equal(o.port, 'error');
        assertCode(o.msg.error as Rec, cases[i][1]);
        assert.match((o.msg.error as Rec).message as string, cases[i][2]);
      }
      assert.equal(serverSubs(), 0);
      inject('w', { entity: { entityType: 'DEVICE', id: '00000000-0000-4000-8000-000000000000' }, limit: 1 });
      const o = await out.nth(cases.length);
      assert.equal(o.port, 'error');
      assert.match((o.msg.error as Rec).message as string, /DEVICE 00000000-0000-4000-8000-000000000000 was not found/);
      await subscribed(0);
    });

    it('maxWaits: one wait over the limit is refused with a clear error; the others go on', async () => {
      await load([waiter({ value: '99', valueType: 'num', timeout: '0', maxWaits: '2' })]);
      const e = probe(1);
      inject('w', { entity: e });
      inject('w', { entity: e });
      inject('w', { entity: e });
      const o = await out.next();
      assert.equal(o.port, 'error');
      assert.match((o.msg.error as Rec).message as string, /already running 2 waits, its limit \(maxWaits 2\)/);
      setT(e, 99);
      assert.equal((await out.next()).port, 'met');
      assert.equal((await out.next()).port, 'met');
    });
  });

  describe('alarms', () => {
    it('by id from the message (as tb-alarm-action takes it): acknowledged; msg.waited.alarm is the flat alarm', async () => {
      await load([waiter({ waitFor: 'alarm', alarmState: 'acknowledged', alarmType: '' })]);
      const dev = probe();
      const a = sim.data.createAlarm({ originator: dev.id, type: 'Escalation Test', severity: 'CRITICAL' });
      inject('w', { topic: a.id, payload: { id: a.id, type: 'Escalation Test' } });
      await subscribed(1);
      sim.data.ackAlarm(a.id);
      const o = await out.next();
      assert.equal(o.port, 'met', JSON.stringify(o.msg.error));
      const w = o.msg.waited as Rec;
      assert.deepEqual(Object.keys(w), ['met', 'value', 'ts', 'ms', 'entity', 'alarm']);
      assert.equal(w.value, 'ACTIVE_ACK');
      assert.deepEqual(w.entity, dev);
      assert.equal((w.alarm as Rec).id, a.id);
      assert.equal((w.alarm as Rec).acknowledged, true);
      assert.equal(w.ts, (w.alarm as Rec).ackTs);
      await subscribed(0);
    });

    it('the latest active alarm of a type on the entity: cleared; an older one does not count', async () => {
      await load([waiter({ waitFor: 'alarm', alarmState: 'cleared', alarmType: 'Overheat' })]);
      const dev = probe();
      const older = sim.data.createAlarm({ originator: dev.id, type: 'Overheat', createdTime: NOW - 1000 });
      const latest = sim.data.createAlarm({ originator: dev.id, type: 'Overheat', createdTime: NOW - 10 });
      inject('w', { entity: dev });
      await subscribed(1);
      sim.data.clearAlarm(older.id);
      sim.data.clearAlarm(latest.id);
      // The older one's clearing came first on the socket: had it met the wait, the wait would have ended with it,
      // the latest still active.
      const o = await out.next();
      assert.equal(o.port, 'met');
      assert.equal(((o.msg.waited as Rec).alarm as Rec).id, latest.id);
      assert.equal((o.msg.waited as Rec).value, 'CLEARED_UNACK');
    });

    it('either, already acknowledged: met at once with checkCurrent, not without; an alarm nobody acknowledges times out', async () => {
      await load([
        waiter({ waitFor: 'alarm', alarmState: 'either' }),
        waiter({ id: 'w2', waitFor: 'alarm', alarmState: 'either', checkCurrent: false, timeout: '200ms' }),
        waiter({ id: 'w3', waitFor: 'alarm', alarmState: 'acknowledged', timeout: '200ms' }),
      ]);
      const dev = probe();
      const a = sim.data.createAlarm({ originator: dev.id, type: 'Acked', acknowledged: true });
      const b = sim.data.createAlarm({ originator: dev.id, type: 'Ignored' });
      inject('w', { payload: { id: a.id } });
      assert.equal((await out.next()).port, 'met');
      inject('w2', { payload: { id: a.id } });
      const late = await out.next();
      assert.equal(late.port, 'late');
      assert.equal((late.msg.waited as Rec).met, false);
      inject('w3', { payload: b.id });
      const late2 = await out.next();
      assert.equal(late2.port, 'late');
      assert.equal(((late2.msg.waited as Rec).alarm as Rec).status, 'ACTIVE_UNACK');
      inject('w', { payload: { id: '00000000-0000-4000-8000-000000000000' } });
      const nf = await out.next();
      assert.equal(nf.port, 'error');
      assertCode(nf.msg.error as Rec, 'TB_NOT_FOUND');
      await subscribed(0);
    });
  });
});
