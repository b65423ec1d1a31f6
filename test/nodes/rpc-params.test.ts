/**
 * tb-rpc's Params setting in the real Node-RED runtime against the simulator: from msg.payload (the default, and an
 * old flow without the setting), fixed JSON and none (msg.payload ignored), msg.rpc.params saying what was sent
 * (one device, a list, a persistent RPC), fixed JSON that is not valid refused at deploy with nothing sent, and the
 * one warning for an inject's timestamp sent as params.
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbRpc from '../../src/nodes/tb-rpc/index';
import {
  errorsLogged,
  flowsOn,
  key,
  lastStatus,
  useRuntime,
  warningsOf as warnings,
  type Rec,
} from '../support/runtime';

function rpc(id: string, props: Rec = {}): Rec {
  return { id, type: 'tb-rpc', connection: 'c1', wires: [['out']], methodType: 'str', method: 'setGpio', ...props };
}

describe('tb-rpc Params: from msg.payload, fixed JSON, none (runtime + simulator)', function () {
  const sim = useRuntime(
    { rpcTimeScale: 0.01 },
    {
      reset: (s) => {
        s.resetRequests();
        s.rpc.resetCounters();
        s.rpc.resetDevices();
      },
    },
  );
  const { load, results } = flowsOn(sim, [tbConnection, tbRpc]);
  const dev = (name: string) => sim.data.mustFindByName('DEVICE', name);
  /** The params the device received with its last call. */
  const received = (id: string) => sim.rpc.calls(id).at(-1)?.params;

  it('from msg.payload (the default, and a flow saved before the setting): sent, and msg.rpc.params says so', async () => {
    await load([rpc('r', { paramsFrom: 'payload' }), rpc('old')]);
    const d = dev('Thermo A-101');
    for (const node of ['r', 'old']) {
      const out = await results.ok(node, { entity: d.id, payload: { pin: 7, value: 1 } });
      assert.deepEqual(received(d.id), { pin: 7, value: 1 }, node);
      assert.deepEqual(out.rpc, { method: 'setGpio', params: { pin: 7, value: 1 }, status: 'SUCCESSFUL' }, node);
      assert.deepEqual(out.payload, { method: 'setGpio', params: { pin: 7, value: 1 } }, `${node}: the device's echo`);
    }
    // No payload: no params sent (the device gets null), and msg.rpc says none.
    const out = await results.ok('r', { entity: d.id });
    assert.equal(received(d.id), null);
    assert.deepEqual(out.rpc, { method: 'setGpio', status: 'SUCCESSFUL' });
    assert.equal('params' in (out.rpc as Rec), false);
  });

  it('fixed JSON: sent whatever msg.payload holds, then said in it; each message gets its own copy of the params', async () => {
    await load([rpc('r', { mode: 'oneway', paramsFrom: 'json', params: ' {"pin": 7, "value": [1, 2]} ' })]);
    const d = dev('Thermo A-102');
    const first = await results.ok('r', { entity: d.id, payload: 1767225600000 });
    assert.deepEqual(received(d.id), { pin: 7, value: [1, 2] });
    assert.deepEqual(first.rpc, { method: 'setGpio', params: { pin: 7, value: [1, 2] }, status: 'SENT' });
    assert.deepEqual(first.payload, first.rpc, 'one-way: what was sent, where a debug node looks first');
    ((first.rpc as Rec).params as Rec).pin = 99; // a later node changes what it got
    const second = await results.ok('r', { entity: d.id, payload: { pin: 1 } });
    assert.deepEqual(received(d.id), { pin: 7, value: [1, 2] }, 'msg.payload ignored, the setting untouched');
    assert.deepEqual((second.rpc as Rec).params, { pin: 7, value: [1, 2] });
    assert.deepEqual(warnings('r'), [], 'an ignored payload is no news: the params are fixed on purpose');
  });

  it('fixed JSON may be any JSON value (a number, a string)', async () => {
    await load([rpc('n', { paramsFrom: 'json', params: '42' }), rpc('s', { paramsFrom: 'json', params: '"on"' })]);
    const d = dev('Thermo A-103');
    assert.deepEqual((await results.ok('n', { entity: d.id, payload: 'x' })).rpc, {
      method: 'setGpio',
      params: 42,
      status: 'SUCCESSFUL',
    });
    assert.equal(received(d.id), 42);
    assert.deepEqual((await results.ok('s', { entity: d.id })).rpc, {
      method: 'setGpio',
      params: 'on',
      status: 'SUCCESSFUL',
    });
    assert.equal(received(d.id), 'on');
  });

  it('none: sends {} whatever msg.payload holds, and msg.rpc.params is {}', async () => {
    await load([rpc('r', { paramsFrom: 'none', params: 'left over, not JSON' })]);
    const d = dev('Thermo A-201');
    const out = await results.ok('r', { entity: d.id, payload: Date.now() });
    assert.deepEqual(received(d.id), {});
    assert.deepEqual(out.rpc, { method: 'setGpio', params: {}, status: 'SUCCESSFUL' });
    assert.deepEqual(warnings('r'), []);
  });

  it('a list of devices: each result says the params sent; a persistent RPC too', async () => {
    await load([
      rpc('r', { paramsFrom: 'json', params: '{"speed": 3}' }),
      rpc('p', { paramsFrom: 'none', persistent: true, waitFor: 'accepted' }),
    ]);
    const list = ['Thermo A-101', 'Thermo A-102', 'Thermo A-103'].map(dev);
    const out = await results.ok('r', { entity: list.map((d) => d.id), payload: 'ignored' });
    const res = out.payload as Array<{ ok: boolean; rpc: Rec }>;
    assert.deepEqual(
      res.map((x) => [x.ok, x.rpc]),
      list.map(() => [true, { method: 'setGpio', params: { speed: 3 }, status: 'SUCCESSFUL' }]),
    );
    for (const d of list) assert.deepEqual(received(d.id), { speed: 3 });
    assert.equal(out.rpc, undefined, 'a list: in each result, not on the message');

    const spare = dev('Spare Sensor');
    const queued = await results.ok('p', { entity: [spare.id], payload: 5 });
    const one = (queued.payload as Array<{ rpc: Rec }>)[0].rpc;
    assert.equal(one.status, 'QUEUED');
    assert.deepEqual(one.params, {});
    const stored = sim.rpc.get(one.id as string) as { request: { body: { params: unknown } } };
    assert.equal(stored.request.body.params, '{}', 'stored as ThingsBoard keeps it: JSON text');
  });

  it('fixed JSON that is not valid (or empty), or an unknown Params: a deploy-time problem naming the field; nothing sent', async () => {
    await load([
      rpc('bad', { paramsFrom: 'json', params: '{"pin": 7,' }),
      rpc('empty', { paramsFrom: 'json', params: '  ' }),
      rpc('odd', { paramsFrom: 'fixed' }),
    ]);
    const d = dev('Thermo A-101');
    assert.deepEqual(lastStatus('bad'), { fill: 'red', shape: 'dot', text: key('configError') });
    assert.match(String(errorsLogged('bad')[0]), /^params is not valid JSON \(e\.g\. \{"pin": 7, "value": 1\}\): /);
    assert.match(
      String(errorsLogged('empty')[0]),
      /^params is empty: type the fixed params as JSON.*or choose "no params"/,
    );
    assert.match(String(errorsLogged('odd')[0]), /^paramsFrom must be one of payload, json, none \(got "fixed"\)/);
    await results.fails('bad', { entity: d.id, payload: { pin: 1 } }, 'TB_CONFIG', /params is not valid JSON/);
    await results.fails('empty', { entity: d.id }, 'TB_CONFIG', /params is empty/);
    await results.fails('odd', { entity: d.id }, 'TB_CONFIG', /paramsFrom must be one of/);
    assert.equal(sim.countRequests('/api/rpc'), 0, 'nothing was sent');
    assert.equal(sim.rpc.requestCount(), 0);
  });

  it("an inject's timestamp sent as params: sent, with one warning per deploy; other numbers say nothing", async () => {
    await load([rpc('r', { mode: 'oneway' })]);
    const d = dev('Thermo A-102');
    await results.ok('r', { entity: d.id, payload: 7 });
    await results.ok('r', { entity: d.id, payload: 1e12 }); // 2001: not "now"
    assert.deepEqual(warnings('r'), []);
    const now = Date.now();
    const out = await results.ok('r', { entity: d.id, payload: now });
    assert.equal(received(d.id), now, 'still sent: the node does not second-guess the flow');
    assert.equal((out.rpc as Rec).params, now);
    await results.ok('r', { entity: d.id, payload: Date.now() });
    const told = warnings('r');
    assert.equal(told.length, 1, 'once');
    assert.match(
      told[0],
      /^msg\.payload is \d+, which looks like a timestamp \(an inject node's default payload\), and was sent as the command's params\. .*"no params" or "fixed JSON"; said once$/,
    );
  });
});
