/**
 * One bad subscription must not take the shared socket down (runtime + simulator WebSocket over loopback):
 * a command too large for one message is refused on its node before sending; a command after which the server
 * closes the session (1009 from a server with a lower limit, 1011 from a server failing on it) is found and
 * blocked after two closes, while the other subscriptions keep running without a status change; reconnects
 * caused by commands follow the capped backoff.
 */
import assert from 'node:assert/strict';
import sinon from 'sinon';
import { BASE_TIME, HOUR } from '../../sim';
import type { LiveHub } from '../../src/live/hub';
import type { TbConnectionNode } from '../../src/node-red/connection';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import {
  assertCode,
  Collector,
  connectionNode,
  flow,
  helper,
  inject,
  key,
  message,
  Msg,
  sentBy,
  statuses,
  TENANT,
  useRuntime,
} from '../support/runtime';
import { waitFor } from '../support/wait';

const NODES = [tbConnection, tbSubscribe];
type Rec = Record<string, unknown>;
const NOW = BASE_TIME + HOUR;

const THERMOSTATS = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
  pageLink: { page: 0, pageSize: 100, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
};
/** An entity list of `n` device ids: 1,000 of them make a ~39 KB command, over ThingsBoard's 32 KiB. */
function listQuery(n: number): Rec {
  const ids = Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`);
  return {
    entityFilter: { type: 'entityList', entityType: 'DEVICE', entityList: ids },
    entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
    pageLink: { page: 0, pageSize: 10 },
  };
}
const BIG = listQuery(1000);
const BY_NAME = {
  entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo A' },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  pageLink: { page: 0, pageSize: 10 },
};
const isByName = (cmd: Rec): boolean =>
  ((cmd.query as Rec | undefined)?.entityFilter as Rec | undefined)?.type === 'entityName';
const isList = (cmd: Rec): boolean =>
  ((cmd.query as Rec | undefined)?.entityFilter as Rec | undefined)?.type === 'entityList';

function sub(id: string, kind: string, query: unknown, extra: Rec = {}): Rec {
  return {
    id,
    type: 'tb-subscribe',
    connection: 'c1',
    kind,
    queryType: 'json',
    query: JSON.stringify(query),
    format: 'flat',
    wires: [['out']],
    ...extra,
  };
}
const fromMsg = (id: string): Rec => ({ ...sub(id, 'entityData', THERMOSTATS), queryType: 'msg', query: 'payload' });
/** Statuses that say the subscription is down or failed. */
const troubled = (id: string) => statuses(id).filter((s) => s.fill === 'red' || s.text === key('reconnecting'));

describe('live: one bad subscription does not take the shared socket down (runtime + simulator)', function () {
  const sim = useRuntime(
    { now: () => NOW },
    {
      settings: { tbConnectionReconnectInitialMs: 20, tbConnectionReconnectMaxMs: 200 },
      cleanup: () => sinon.restore(),
    },
  );
  let ts = NOW;

  const load = (nodes: Rec[], conn: Rec = {}) =>
    helper.load(NODES, flow(connectionNode(sim.url, conn), ...nodes), { c1: TENANT });
  const hub = (): LiveHub => (helper.getNode('c1') as unknown as TbConnectionNode).live();
  /**
   * Waits until nothing more can happen on the connection, so that what the test counts next stays as it is: the
   * socket is up, no reconnect or probe is scheduled, no command waits to be sent, and the server answered every
   * command it got (it closes a session only right after a command). Read from the hub's own fields.
   */
  const atRest = (): Promise<void> => {
    const h = hub() as unknown as {
      open: boolean;
      reconnectTimer?: unknown;
      probeTimer?: unknown;
      probes: unknown[];
      queue: unknown[];
      entries: Map<unknown, { cmdId: number; answered: boolean; blocked?: unknown }>;
    };
    return waitFor(
      () =>
        h.open &&
        !h.reconnectTimer &&
        !h.probeTimer &&
        h.probes.length === 0 &&
        h.queue.length === 0 &&
        [...h.entries.values()].every((e) => e.blocked || (e.cmdId > 0 && e.answered)),
      8000,
      'the connection at rest',
    );
  };

  it('a live query too large for one WebSocket message is refused on its node before sending; the others run on the one socket', async () => {
    const before = sim.ws.connections().total;
    const commandsBefore = sim.ws.commandsReceived().length;
    await load([sub('big', 'entityData', BIG), sub('ok', 'entityData', THERMOSTATS)]);
    const c = new Collector('out');
    const error = (await caughtAtDeploy()).error as Rec;
    assertCode(error, 'TB_INVALID_INPUT');
    assert.match(
      error.message as string,
      /The live query is 39 KB; ThingsBoard accepts 32 KB per WebSocket message \(the connection's "Live message limit"\), so it was not sent: use a filter such as deviceType or a relation instead of a long entity list/,
    );
    const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
    assert.equal((snap.payload as unknown[]).length, 20);
    assert.deepEqual(statuses('big').at(-1), { fill: 'red', shape: 'dot', text: key('invalidInput') });
    assert.equal(
      sim.ws
        .commandsReceived()
        .slice(commandsBefore)
        .filter((e) => isList(e.cmd)).length,
      0,
      'nothing of it was sent',
    );
    assert.equal(sim.ws.connections().total - before, 1, 'one socket, never closed');
    assert.deepEqual(troubled('ok'), []);
    assert.equal(hub().stats.blocked, 0);
  });

  it('from a message: done(err) with that message, nothing sent, and the node takes the next message', async () => {
    await load([fromMsg('m')]);
    const commandsBefore = sim.ws.commandsReceived().length;
    const caught = message('caught');
    inject('m', { payload: BIG, tag: 'first' });
    const got = await caught;
    assert.equal(got.tag, 'first', 'the Catch node gets the message that was refused');
    assertCode(got.error as Rec, 'TB_INVALID_INPUT');
    assert.match((got.error as Rec).message as string, /The live query is 39 KB/);
    assert.deepEqual(statuses('m').at(-1), { fill: 'red', shape: 'ring', text: key('invalidInput') });
    assert.equal(sim.ws.commandsReceived().length, commandsBefore, 'nothing sent');
    const c = new Collector('out');
    inject('m', { payload: THERMOSTATS });
    assert.equal(((await c.until((m) => m.event === 'snapshot')).payload as unknown[]).length, 20);
  });

  it('the limit is a connection setting: at 1 KB a 50-device list is refused, at 64 KB the 1,000-device list is sent', async () => {
    await load([sub('s', 'entityData', listQuery(50))], { wsMessageLimit: 1 });
    assert.match(
      ((await caughtAtDeploy()).error as Rec).message as string,
      /The live query is 3 KB; ThingsBoard accepts 1 KB per WebSocket message/,
    );
    await helper.unload();
    // a server configured with a larger limit answers it
    sim.ws.configure({ maxMessageBytes: 65536 });
    try {
      await load([sub('s', 'entityData', BIG)], { wsMessageLimit: 64 });
      const snap = await collectorAtDeploy().until((m) => m.event === 'snapshot', 8000, true);
      assert.deepEqual(snap.payload, [], 'sent and answered (none of these ids exist)');
    } finally {
      sim.ws.configure({ maxMessageBytes: 32768 });
    }
  });

  it('a server with a lower limit closes with 1009: the command is found after two closes and blocked; the others never flap', async () => {
    const before = sim.ws.connections().total;
    await load(
      [
        sub('ok', 'entityData', THERMOSTATS),
        sub('cnt', 'entityCount', { entityFilter: THERMOSTATS.entityFilter }),
        sub('big', 'entityData', BIG),
      ],
      { wsMessageLimit: 64 },
    );
    const c = new Collector('out');
    const error = (await caughtAtDeploy()).error as Rec;
    assertCode(error, 'TB_SUBSCRIPTION');
    assert.match(
      error.message as string,
      /ThingsBoard closed the WebSocket \(closed 1009[^)]*\) 2 times right after this subscription's command, so it is no longer sent; the other subscriptions of the connection keep running/,
    );
    assert.match(
      error.message as string,
      /the command is 39 KB\): set the connection's "Live message limit" to the server's/,
    );
    await c.until((m) => m.event === 'snapshot', 8000, true);
    await c.until((m) => m.event === 'count' && m.payload === 20, 8000, true);
    // The first message (auth and all three) and the lone retry of the culprit were closed; the third socket stays.
    await waitFor(() => sim.ws.connections().total - before === 3 && sim.ws.connections().authenticated === 1);
    assert.equal(hub().stats.blocked, 1);
    sim.data.setTelemetry(sim.data.mustFindByName('DEVICE', 'Thermo A-101').id, { temperature: 12.5 }, ++ts);
    const u = await c.until((m) => m.event === 'update');
    assert.equal((u.payload as Rec).temperature, 12.5);
    await atRest();
    assert.equal(sim.ws.connections().total - before, 3, 'no reconnect after the culprit was blocked');
    assert.equal(c.all.filter((m) => m.event === 'snapshot').length, 1, 'the healthy table was not sent again');
    for (const id of ['ok', 'cnt']) {
      assert.deepEqual(troubled(id), [], `${id} never showed a red status`);
      const all = statuses(id);
      const live = all.findIndex((s) => s.fill === 'green');
      assert.ok(live > 0, `${id} went live`);
      assert.deepEqual(
        all.slice(live).filter((s) => s.fill !== 'green'),
        [],
        `${id}: nothing but green once live`,
      );
    }
    assert.deepEqual(statuses('big').at(-1), { fill: 'red', shape: 'ring', text: key('error') });
  });

  it('a server failing on one command (1011): a subscription added later is blocked after two closes; the running one sees no status change at all', async () => {
    await load([sub('ok', 'entityData', THERMOSTATS), fromMsg('m')]);
    const c = new Collector('out');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    await waitFor(() => statuses('ok').some((s) => s.fill === 'green'));
    const fault = sim.ws.closeOnCommand({ match: isByName, code: 1011, reason: 'Internal error' });
    try {
      const shown = statuses('ok').length;
      const before = sim.ws.connections().total;
      const caught = message('caught');
      inject('m', { payload: BY_NAME });
      const error = (await caught).error as Rec;
      assertCode(error, 'TB_SUBSCRIPTION');
      assert.match(
        error.message as string,
        /\(closed 1011: Internal error\) 2 times right after this subscription's command[^]*The server fails on this command: check the query, or the server log/,
      );
      assert.equal(fault.hits, 2);
      await waitFor(() => sim.ws.connections().authenticated === 1);
      sim.data.setTelemetry(sim.data.mustFindByName('DEVICE', 'Thermo B-202').id, { temperature: 31 }, ++ts);
      const u = await c.until((m) => m.event === 'update');
      assert.equal((u.payload as Rec).name, 'Thermo B-202');
      await atRest();
      assert.equal(sim.ws.connections().total - before, 2, 'two reconnects, then none');
      assert.deepEqual(statuses('ok').slice(shown), [], 'the running subscription showed nothing');
      assert.equal(c.all.filter((m) => m.event === 'snapshot').length, 1);
    } finally {
      fault.remove();
    }
    // blocking is per subscription: the same query in a new message works once the server does
    inject('m', { payload: BY_NAME });
    const snap = await c.until(
      (m) =>
        m.event === 'snapshot' &&
        Array.isArray(m.payload) &&
        (m.payload as Rec[]).every((e) => String(e.name).startsWith('Thermo A')),
    );
    assert.ok((snap.payload as unknown[]).length > 0);
  });

  it('reconnects caused by commands follow the capped backoff, not the per-socket reset', async () => {
    await load([sub('ok', 'entityCount', { entityFilter: THERMOSTATS.entityFilter }), fromMsg('m')]);
    await new Collector('out').until((m) => m.event === 'count', 8000, true);
    const spy = sinon.spy(hub() as unknown as { scheduleReconnect: (kind: string) => number }, 'scheduleReconnect');
    const fault = sim.ws.closeOnCommand({ match: isByName, code: 1011 });
    try {
      for (let i = 0; i < 3; i++) {
        const caught = message('caught');
        inject('m', { payload: BY_NAME });
        assertCode((await caught).error as Rec, 'TB_SUBSCRIPTION');
      }
    } finally {
      fault.remove();
    }
    const delays = spy
      .getCalls()
      .filter((call) => call.args[0] === 'command')
      .map((call) => call.returnValue);
    assert.equal(delays.length, 6, 'two closes per bad subscription');
    // initial 20 ms doubling to the 200 ms cap, ±20 % jitter: 16, 32, 64, 128, 160, 160 at least
    delays.forEach((d, i) =>
      assert.ok(d >= Math.min(200, 20 * 2 ** i) * 0.8, `delay ${i + 1} is ${d} ms: ${delays.join(', ')}`),
    );
  });
});

/** The first message the Catch node caught since the flow was loaded (it may come before a test can listen). */
async function caughtAtDeploy(): Promise<Msg> {
  await waitFor(() => sentBy('catch').length > 0, 8000);
  return sentBy('catch')[0];
}

/** A collector that also holds what reached "out" before the test could listen (from the helper's spy). */
function collectorAtDeploy(): Collector {
  const c = new Collector('out');
  c.all.unshift(...sentBy('s'));
  return c;
}
