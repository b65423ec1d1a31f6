/**
 * Where an action's value comes from (issue 17), in the real Node-RED runtime against the simulator: for
 * tb-telemetry, tb-attributes, tb-rpc and tb-alarm-action,
 * - a setting fixed in the dialog wins: a leftover message property of the same name is ignored, and the node
 *   warns once (per node and property, not per message);
 * - a setting left empty (or set to the message) reads that property;
 * - a placeholder in a text setting (`{{msg.<path>}}`, `{{flow.<key>}}`, `{{global.<key>}}`, `{{env.<NAME>}}`) is
 *   resolved for each message (a whole placeholder keeps the value's type);
 * - a missing placeholder value refuses the message (TB_INVALID_INPUT naming the setting and the binding), with
 *   nothing sent.
 */
import assert from 'node:assert/strict';
import type { Node } from 'node-red';
import { BASE_TIME, HOUR } from '../../sim';
import tbAlarmAction from '../../src/nodes/tb-alarm-action/index';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbRpc from '../../src/nodes/tb-rpc/index';
import tbTelemetry from '../../src/nodes/tb-telemetry/index';
import { flowsOn, helper, useRuntime } from '../support/runtime';
import type { Rec } from './device-support';

const NODES = [tbConnection, tbTelemetry, tbAttributes, tbRpc, tbAlarmAction];
const NOW = BASE_TIME + HOUR;
const T = '/api/plugins/telemetry';

function node(type: string, id: string, props: Rec = {}): Rec {
  return { id, type, connection: 'c1', wires: [['out']], ...props };
}

/** The texts node `id` passed to node.warn so far. */
function warnings(id: string): string[] {
  const n = helper.getNode(id) as unknown as { warn: { getCalls(): Array<{ thisValue: unknown; args: unknown[] }> } };
  return n.warn
    .getCalls()
    .filter((c) => c.thisValue === n)
    .map((c) => String(c.args[0]));
}

describe('values from the message: the dialog wins, placeholders in text settings (runtime + simulator)', function () {
  const sim = useRuntime(
    { now: () => NOW, rpcTimeScale: 0.01 },
    {
      settings: { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 },
      reset: (s) => {
        s.resetRequests();
        s.rpc.resetDevices();
      },
      cleanup: () => void delete process.env.TB_TEST_RPC_METHOD,
    },
  );
  const { load: loadFlow, results } = flowsOn(sim, NODES);
  const load = (nodes: Rec[]) => loadFlow(nodes);
  let probes = 0;
  const probe = () => sim.data.addEntity({ entityType: 'DEVICE', name: `Source probe ${++probes}`, type: 'default' });
  const dev = (name: string) => sim.data.mustFindByName('DEVICE', name);

  describe('tb-telemetry', () => {
    it('fixed keys win over a leftover msg.keys, with one warning for the node; empty keys read msg.keys', async () => {
      await load([
        node('tb-telemetry', 'fixed', { operation: 'latest', keys: 'temperature' }),
        node('tb-telemetry', 'empty', { operation: 'latest', keys: '' }),
      ]);
      const b102 = dev('Thermo B-102');
      for (let i = 0; i < 3; i++) {
        const out = await results.ok('fixed', { entity: b102.id, keys: ['humidity'] });
        assert.deepEqual(out.payload, { temperature: 'n/a' }, "the dialog's keys");
      }
      const told = warnings('fixed');
      assert.equal(told.length, 1, `once, not per message: ${JSON.stringify(told)}`);
      assert.match(told[0], /msg\.keys is ignored: the node's setting "keys" is fixed in its dialog/);
      assert.deepEqual((await results.ok('empty', { entity: b102.id, keys: ['humidity'] })).payload, {
        humidity: '45',
      });
      assert.deepEqual(warnings('empty'), [], 'nothing ignored, nothing said');
    });

    it('a fixed operation and a fixed entity win over msg.operation and msg.entity (each said once)', async () => {
      const a = probe();
      const b = probe();
      await load([
        node('tb-telemetry', 't', {
          operation: 'save',
          targetType: 'json',
          target: JSON.stringify({ entityType: 'DEVICE', id: a.id }),
        }),
      ]);
      await results.ok('t', { entity: b.id, operation: 'delete', payload: { v: 1 } });
      await results.ok('t', { entity: b.id, operation: 'delete', payload: { v: 2 } });
      assert.equal(sim.data.latestOf(a.id, 'v')?.value, 2, "saved on the dialog's entity");
      assert.equal(sim.data.latestOf(b.id, 'v'), undefined, 'not on msg.entity');
      const told = warnings('t');
      assert.equal(told.length, 2, JSON.stringify(told));
      assert.ok(
        told.some((w) => /^msg\.operation is ignored/.test(w)) &&
          told.some((w) => /^msg\.entity is ignored: the node's setting "target"/.test(w)),
      );
    });

    it('placeholders: keys from {{msg.…}} (a list keeps its type), a range from {{flow.…}}, a ttl from {{env.…}}; a missing value is refused with nothing sent', async () => {
      await load([
        node('tb-telemetry', 'k', { operation: 'latest', keys: '{{msg.payload.wanted}}' }),
        node('tb-telemetry', 'h', {
          operation: 'history',
          keys: 'temperature',
          last: '{{ flow.window }}',
          limit: '{{msg.n}}',
        }),
        node('tb-telemetry', 's', { operation: 'save', ttl: '{{env.TB_TEST_TTL}}' }),
      ]);
      const b102 = dev('Thermo B-102');
      const out = await results.ok('k', { entity: b102.id, payload: { wanted: ['humidity'] }, keys: ['temperature'] });
      assert.deepEqual(out.payload, { humidity: '45' });
      assert.deepEqual(
        warnings('k'),
        [],
        'a setting taken from the message by a placeholder: msg.keys is no leftover worth a warning',
      );

      (helper.getNode('h') as unknown as Node).context().flow.set('window', '2h');
      await results.ok('h', { entity: dev('Thermo A-101').id, n: 2 });
      const q = (sim.requests.entries(1)[0] as { query: string }).query;
      assert.match(q, /limit=2/, q);

      sim.resetRequests();
      await results.fails(
        'k',
        { entity: b102.id, payload: {} },
        'TB_INVALID_INPUT',
        /: keys is bound to msg\.payload\.wanted, which is undefined: the message must give it a value/,
      );
      await results.fails(
        'h',
        { entity: b102.id, n: 'ten' },
        'TB_INVALID_INPUT',
        /: limit is bound to msg\.n, which is "ten": must be a whole number/,
      );
      (helper.getNode('h') as unknown as Node).context().flow.set('window', '');
      await results.fails(
        'h',
        { entity: b102.id, n: 2 },
        'TB_INVALID_INPUT',
        /: last is bound to flow\.window, which is empty/,
      );
      await results.fails(
        's',
        { entity: probe().id, payload: { v: 1 } },
        'TB_INVALID_INPUT',
        /: ttl is bound to env\.TB_TEST_TTL, which is (undefined|empty)/,
      );
      assert.equal(sim.countRequests(T), 0, 'nothing sent');
    });
  });

  describe('tb-attributes', () => {
    it('a fixed scope wins over msg.scope (warned once); a key placeholder among text is interpolated; missing refused', async () => {
      await load([
        node('tb-attributes', 'r', { operation: 'read', scope: 'SERVER_SCOPE', keys: '{{msg.prefix}}del' }),
        node('tb-attributes', 'm', { operation: 'read', scope: 'msg', keys: '' }),
      ]);
      const a101 = dev('Thermo A-101');
      const out = await results.ok('r', { entity: a101.id, prefix: 'mo', scope: 'SHARED_SCOPE' });
      assert.deepEqual(out.payload, { model: 'TH-100' }, 'SERVER_SCOPE "model"');
      await results.ok('r', { entity: a101.id, prefix: 'mo', scope: 'SHARED_SCOPE' });
      const told = warnings('r');
      assert.equal(told.length, 1, JSON.stringify(told));
      assert.match(told[0], /^msg\.scope is ignored/);
      // From the message, as the dialog says.
      const fromMsg = await results.ok('m', { entity: a101.id, scope: 'SERVER_SCOPE', keys: 'model' });
      assert.deepEqual(fromMsg.payload, { model: 'TH-100' });
      sim.resetRequests();
      await results.fails(
        'r',
        { entity: a101.id, prefix: { no: 1 } },
        'TB_INVALID_INPUT',
        /keys puts msg\.prefix into text, but it is an object/,
      );
      await results.fails(
        'r',
        { entity: a101.id },
        'TB_INVALID_INPUT',
        /: keys is bound to msg\.prefix, which is undefined/,
      );
      assert.equal(sim.countRequests(T), 0, 'nothing sent');
    });
  });

  describe('tb-rpc', () => {
    it('a fixed method and timeout win over msg.method / msg.timeout (each said once); empty settings read the message', async () => {
      const d = dev('Thermo A-101');
      sim.rpc.setDevice(d.id, { mode: 'answer', reply: (call) => ({ method: call.method }) });
      await load([
        node('tb-rpc', 'fixed', {
          methodType: 'str',
          method: 'getState',
          timeout: '5000',
          targetType: 'json',
          target: JSON.stringify({ entityType: 'DEVICE', id: d.id }),
        }),
        node('tb-rpc', 'open', { methodType: 'auto', method: '', timeout: '' }),
      ]);
      const out = await results.ok('fixed', { method: 'reboot', timeout: 'forever' });
      assert.deepEqual(out.payload, { method: 'getState' });
      await results.ok('fixed', { method: 'reboot', timeout: 'forever' });
      const told = warnings('fixed');
      assert.equal(told.length, 2, JSON.stringify(told));
      assert.ok(
        told.some((w) => /^msg\.method is ignored/.test(w)) && told.some((w) => /^msg\.timeout is ignored/.test(w)),
      );
      // Left empty: the message's method and timeout (a bad one is the message's to answer for).
      assert.deepEqual((await results.ok('open', { entity: d.id, method: 'reboot', timeout: 6000 })).payload, {
        method: 'reboot',
      });
      await results.fails(
        'open',
        { entity: d.id, method: 'reboot', timeout: 'forever' },
        'TB_INVALID_INPUT',
        /: msg\.timeout must be a duration/,
      );
    });

    it('a placeholder in the method: {{env.…}} whole, {{msg.…}} inside text; missing refused with nothing sent', async () => {
      const d = dev('Thermo A-101');
      sim.rpc.setDevice(d.id, { mode: 'answer', reply: (call) => ({ method: call.method, params: call.params }) });
      process.env.TB_TEST_RPC_METHOD = 'getState';
      await load([
        node('tb-rpc', 'env', { methodType: 'str', method: '{{env.TB_TEST_RPC_METHOD}}' }),
        node('tb-rpc', 'mix', { methodType: 'str', method: 'set{{msg.what}}' }),
      ]);
      assert.deepEqual((await results.ok('env', { entity: d.id })).payload, { method: 'getState', params: null });
      const out = await results.ok('mix', { entity: d.id, what: 'Gpio', payload: { pin: 1 } });
      assert.deepEqual(out.payload, { method: 'setGpio', params: { pin: 1 } });
      assert.deepEqual(out.rpc, { method: 'setGpio', params: { pin: 1 }, status: 'SUCCESSFUL' });
      const before = sim.countRequests('/api/rpc/', 'POST');
      await results.fails(
        'mix',
        { entity: d.id },
        'TB_INVALID_INPUT',
        /: method is bound to msg\.what, which is undefined: the message must give it a value/,
      );
      assert.equal(sim.countRequests('/api/rpc/', 'POST'), before, 'nothing sent');
    });
  });

  describe('tb-alarm-action', () => {
    let n = 0;
    const newAlarm = () =>
      sim.data.createAlarm({ originator: dev('Thermo A-101').id, type: `Source Alarm ${++n}`, severity: 'MAJOR' });

    it('a fixed comment and operation win over msg.comment / msg.operation (each said once); "auto" reads msg.comment', async () => {
      await load([
        node('tb-alarm-action', 'fixed', { operation: 'acknowledge', comment: 'Seen by the flow', commentType: 'str' }),
        node('tb-alarm-action', 'auto', { operation: 'acknowledge', comment: '', commentType: 'auto' }),
      ]);
      const a = newAlarm();
      let out = await results.ok('fixed', { payload: a.id, comment: 'left over', operation: 'delete' });
      assert.equal(out.operation, 'acknowledge');
      assert.equal(((out.alarmComment as Rec).comment as Rec).text, 'Seen by the flow');
      await results.ok('fixed', { payload: newAlarm().id, comment: 'left over', operation: 'delete' });
      const told = warnings('fixed');
      assert.equal(told.length, 2, JSON.stringify(told));
      assert.ok(
        told.some((w) => /^msg\.operation is ignored/.test(w)) &&
          told.some((w) => /^msg\.comment is ignored: the node's setting "comment"/.test(w)),
      );
      out = await results.ok('auto', { payload: newAlarm().id, comment: 'from the message' });
      assert.equal(((out.alarmComment as Rec).comment as Rec).text, 'from the message');
    });

    it('placeholders in the comment, the assignee and the alarm type of a raise; missing refused with nothing sent', async () => {
      const tech = sim.data.users().find((u) => u.name === 'tech@thingsboard.org');
      assert.ok(tech, 'the simulator has the tech user');
      await load([
        node('tb-alarm-action', 'c', {
          operation: 'clear',
          comment: 'Back to {{msg.payload.t}} °C',
          commentType: 'str',
          alarmType: 'msg',
          alarm: 'alarm',
        }),
        node('tb-alarm-action', 'as', { operation: 'assign', assignee: '{{global.oncall}}', assigneeType: 'str' }),
        node('tb-alarm-action', 'r', { operation: 'raise', alarmName: '{{msg.kind}} (flow)', severity: 'MINOR' }),
      ]);
      const a = newAlarm();
      let out = await results.ok('c', { alarm: a.id, payload: { t: 21.5 } });
      assert.equal(((out.alarmComment as Rec).comment as Rec).text, 'Back to 21.5 °C');

      (helper.getNode('as') as unknown as Node).context().global.set('oncall', 'tech@thingsboard.org');
      const b = newAlarm();
      await results.ok('as', { payload: b.id });
      assert.equal(sim.data.getAlarm(b.id)!.assigneeId, tech!.id);

      const device = dev('Thermo A-102');
      out = await results.ok('r', {
        kind: 'Door open',
        payload: { originator: { entityType: 'DEVICE', id: device.id } },
      });
      assert.equal((out.payload as Rec).type, 'Door open (flow)');
      assert.equal((out.payload as Rec).severity, 'MINOR');

      sim.resetRequests();
      await results.fails(
        'c',
        { alarm: newAlarm().id, payload: {} },
        'TB_INVALID_INPUT',
        /: comment is bound to msg\.payload\.t, which is undefined/,
      );
      (helper.getNode('as') as unknown as Node).context().global.set('oncall', null);
      await results.fails(
        'as',
        { payload: newAlarm().id },
        'TB_INVALID_INPUT',
        /: assignee is bound to global\.oncall, which is null/,
      );
      await results.fails(
        'r',
        { payload: { originator: { entityType: 'DEVICE', id: device.id } } },
        'TB_INVALID_INPUT',
        /: alarmName is bound to msg\.kind, which is undefined/,
      );
      assert.equal(sim.countRequests('/api/alarm'), 0, 'nothing sent');
    });
  });
});
