/**
 * The three act-then-wait examples (tb-wait-until) as shipped in examples/, run in the real runtime against the
 * simulator (their connection replaced by the test's, their debug nodes by helper nodes, their inject buttons pressed
 * by the test, the device's part played by the test): a target is saved and the room reaches it, or the
 * notification says it did not; a critical alarm is acknowledged in time, or escalated; a rebooted gateway comes
 * back. Each timed-out branch runs with the example's timeout cut to a second.
 */
import assert from 'node:assert/strict';
import { dbl, type RpcCall } from '../../sim';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbRpc from '../../src/nodes/tb-rpc/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import tbWaitUntil from '../../src/nodes/tb-wait-until/index';
import {
  Collector,
  coreNode,
  exampleFlow,
  helper,
  inject,
  key,
  lastStatus,
  statusWhere,
  TENANT,
  useRuntime,
  type ExampleNode,
} from '../support/runtime';
import { waitFor } from './device-support';

// the examples' messages are arbitrary JSON, read deep in the assertions
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Rec = Record<string, any>;

const TARGET = 'Set a target and confirm the room reaches it.json';
const ESCALATE = 'Escalate an alarm nobody acknowledged.json';
const REBOOT = 'Reboot and wait until online.json';

describe('examples: act, then wait (runtime + simulator)', function () {
  this.timeout(30000);
  const sim = useRuntime({}, { perTest: true, server: true });
  const NODES = [tbConnection, tbEntityQuery, tbSubscribe, tbAttributes, tbRpc, tbWaitUntil];
  const CORE = ['common/20-inject.js', 'function/80-template.js'].map(coreNode);

  /** Loads an example; `timeout` replaces its tb-wait-until's (for the timed-out branch). */
  async function load(file: string, timeout?: string): Promise<(name: string) => ExampleNode> {
    const { nodes, byName } = exampleFlow(file, sim.url);
    const waits = nodes.filter((n) => n.type === 'tb-wait-until');
    assert.equal(waits.length, 1, 'one tb-wait-until in the example');
    if (timeout !== undefined) waits[0].timeout = timeout;
    // the node modules' and flows' exact types do not matter to helper.load
    await helper.load([...NODES, ...CORE] as never, nodes as never, { c1: TENANT });
    return byName;
  }

  /** Presses an inject node's button (as the editor's button does: the node sends its message). */
  const press = (node: ExampleNode) => inject(node.id, {} as never);
  /** Resolves when the wait node shows "waiting for N" (in tests a status text is its catalog key: no count). */
  const waiting = (node: ExampleNode) => statusWhere(node.id, (s) => s.fill === 'blue' && s.text === key('waiting'));
  /** The node's last status has this colour (met: green, timed out: yellow), shown now or before. */
  const showed = (node: ExampleNode, fill: string) =>
    waitFor(() => lastStatus(node.id)?.fill === fill, 5000, `a ${fill} status on "${node.name}"`);

  it('Set a target and confirm the room reaches it: the target saved from msg.target, met when the room is warm enough', async () => {
    const byName = await load(TARGET);
    const reached = new Collector(byName('reached').id);
    const notification = new Collector(byName('notification').id);
    const error = new Collector(byName('error').id);
    const lab = sim.data.mustFindByName('DEVICE', 'Thermo Lab');
    sim.data.setTelemetry(lab.id, { temperature: dbl(20) });

    const wait = byName('until temperature ≥ target');
    const started = waiting(wait);
    press(byName('warm the lab to 23 °C'));
    await started;
    // The Values row saved msg.target (23) as the shared target: ThingsBoard pushes it to the device.
    assert.equal(sim.data.attributeOf(lab.id, 'SHARED_SCOPE', 'targetTemperature')?.value, 23);
    assert.equal(sim.telemetry.sharedPushes(lab.id), 1);
    sim.data.setTelemetry(lab.id, { temperature: dbl(22.5) });
    sim.data.setTelemetry(lab.id, { temperature: dbl(23.5) });
    const out = await reached.until(() => true, 8000);
    const waited = out.waited as Rec;
    assert.deepEqual([waited.met, waited.value, waited.entity], [true, 23.5, { entityType: 'DEVICE', id: lab.id }]);
    assert.equal(typeof waited.ms, 'number');
    assert.equal(out.target, 23);
    await showed(wait, 'green');

    // Already warm enough: the current value counts, met at once.
    press(byName('warm the lab to 23 °C'));
    const again = await reached.until(() => true, 8000);
    assert.equal((again.waited as Rec).value, 23.5);
    assert.deepEqual([notification.all.length, error.all.length], [0, 0]);
  });

  it('Set a target and confirm the room reaches it: a room that stays cold gets the notification', async () => {
    const byName = await load(TARGET, '1s');
    const notification = new Collector(byName('notification').id);
    const lab = sim.data.mustFindByName('DEVICE', 'Thermo Lab');
    sim.data.setTelemetry(lab.id, { temperature: dbl(19.5) });
    press(byName('warm the lab to 23 °C'));
    const out = await notification.until(() => true, 8000);
    assert.equal(out.payload, 'Thermo Lab did not reach 23 °C within 30 minutes: it is at 19.5 °C.');
    assert.deepEqual([(out.waited as Rec).met, (out.waited as Rec).value], [false, 19.5]);
    await showed(byName('until temperature ≥ target'), 'yellow');
  });

  it('Escalate an alarm nobody acknowledged: an alarm acknowledged in time goes out on met, with the alarm', async () => {
    const byName = await load(ESCALATE);
    const inTime = new Collector(byName('acknowledged in time').id);
    const escalation = new Collector(byName('escalation').id);
    await statusWhere(byName('new critical alarms').id, (s) => s.fill === 'green');
    const thermo = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    const wait = byName('until acknowledged, 10 min');
    const started = waiting(wait);
    const alarm = sim.data.createAlarm({ originator: thermo.id, type: 'Overheating', severity: 'CRITICAL' });
    await started;
    // A major alarm is not followed (the subscription sends critical ones only).
    sim.data.createAlarm({ originator: thermo.id, type: 'Door open', severity: 'MAJOR' });
    sim.data.ackAlarm(alarm.id);
    const out = await inTime.until(() => true, 8000);
    const waited = out.waited as Rec;
    assert.equal(waited.met, true);
    assert.equal(waited.value, 'ACTIVE_ACK');
    assert.deepEqual(waited.entity, { entityType: 'DEVICE', id: thermo.id });
    assert.deepEqual([waited.alarm.id, waited.alarm.type, waited.alarm.acknowledged], [alarm.id, 'Overheating', true]);
    assert.equal((out.payload as Rec).id, alarm.id, 'the message that started the wait: the created alarm');
    await showed(wait, 'green');
    assert.equal(escalation.all.length, 0);
  });

  it('Escalate an alarm nobody acknowledged: nobody acknowledges (a clear is not an acknowledgement), the escalation names the alarm', async () => {
    const byName = await load(ESCALATE, '1500ms');
    const inTime = new Collector(byName('acknowledged in time').id);
    const escalation = new Collector(byName('escalation').id);
    await statusWhere(byName('new critical alarms').id, (s) => s.fill === 'green');
    const thermo = sim.data.mustFindByName('DEVICE', 'Thermo B-201');
    const started = waiting(byName('until acknowledged, 10 min'));
    const alarm = sim.data.createAlarm({ originator: thermo.id, type: 'Overheating', severity: 'CRITICAL' });
    await started;
    sim.data.clearAlarm(alarm.id);
    const out = await escalation.until(() => true, 8000);
    assert.equal(
      out.payload,
      'Nobody acknowledged Overheating on Thermo B-201 within 10 minutes: calling the manager.',
    );
    const waited = out.waited as Rec;
    assert.deepEqual(
      [waited.met, waited.alarm.id, waited.alarm.acknowledged, waited.alarm.cleared],
      [false, alarm.id, false, true],
    );
    assert.equal(inTime.all.length, 0);
  });

  it('Reboot and wait until online: a one-way reboot without params, met when the gateway is active again (not by its state before)', async () => {
    const byName = await load(REBOOT);
    const online = new Collector(byName('back online').id);
    const stillOffline = new Collector(byName('still offline').id);
    const error = new Collector(byName('error').id);
    const gateway = sim.data.mustFindByName('DEVICE', 'Gateway 1');
    assert.equal(sim.data.attributeOf(gateway.id, 'SERVER_SCOPE', 'active')?.value, true, 'active before the reboot');
    // The gateway's part: the reboot makes it inactive at once.
    const calls: RpcCall[] = [];
    const onDelivered = (call: RpcCall) => {
      calls.push(call);
      if (call.method === 'reboot') sim.data.setAttributes(call.deviceId, 'SERVER_SCOPE', { active: false });
    };
    sim.rpc.events.on('delivered', onDelivered);
    try {
      const wait = byName('until active = true, 5 min');
      const started = waiting(wait);
      press(byName('reboot Gateway 1'));
      await started;
      assert.deepEqual(
        calls.map((c) => [c.deviceId, c.method, c.params, c.oneway]),
        [[gateway.id, 'reboot', {}, true]],
        'one one-way reboot, with no params ("{}"), not the inject timestamp',
      );
      // The current value does not count (it was active before the command): only a change after the message, once
      // the wait's subscription is on the server.
      await waitFor(
        () => sim.ws.sessionList().reduce((n, s) => n + s.cmdIds.length, 0) === 1,
        5000,
        'the wait subscribed',
      );
      assert.equal(online.all.length, 0);
      sim.data.setAttributes(gateway.id, 'SERVER_SCOPE', { active: true });
      const out = await online.until(() => true, 8000);
      const waited = out.waited as Rec;
      assert.deepEqual(
        [waited.met, waited.value, waited.entity],
        [true, true, { entityType: 'DEVICE', id: gateway.id }],
      );
      assert.equal((out.rpc as Rec).status, 'SENT');
      assert.deepEqual([stillOffline.all.length, error.all.length], [0, 0]);
    } finally {
      sim.rpc.events.off('delivered', onDelivered);
    }
  });

  it('Reboot and wait until online: a gateway that does not come back gets the alert', async () => {
    const byName = await load(REBOOT, '1s');
    const stillOffline = new Collector(byName('still offline').id);
    const gateway = sim.data.mustFindByName('DEVICE', 'Gateway 1');
    press(byName('reboot Gateway 1'));
    const out = await stillOffline.until(() => true, 8000);
    assert.equal(out.payload, 'Gateway 1 did not come back within 5 minutes of its reboot.');
    assert.deepEqual([(out.waited as Rec).met, (out.waited as Rec).entity.id], [false, gateway.id]);
  });
});
