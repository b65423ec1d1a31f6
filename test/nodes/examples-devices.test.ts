/**
 * The four device-action examples as shipped in examples/, run in the real runtime against the simulator (their
 * connection replaced by the test's, their debug nodes by helper nodes, their inject buttons pressed by the test):
 * every thermostat gets its target temperature in one message, straight from the query into the attributes node
 * with the value set in its dialog; a computed dew point is written back; a device picked by name is commanded and
 * answers, and a persistent command with fixed params goes to every thermostat the query found, and a silent one
 * ends at the catch node; the last 24 hours of a device picked by name come back as hourly rows and chart data.
 */
import assert from 'node:assert/strict';
import { dbl, long } from '../../sim';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbRpc from '../../src/nodes/tb-rpc/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import tbTelemetry from '../../src/nodes/tb-telemetry/index';
import {
  assertCode,
  Collector,
  inject,
  loadExample,
  statuses,
  statusWhere,
  useRuntime,
  type ExampleNode,
} from '../support/runtime';

type N = ExampleNode;
// the examples' messages are arbitrary JSON, read deep in the assertions
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Rec = Record<string, any>;
const HOUR = 3600000;

/** A value as plain JSON: what a function node made lives in its own sandbox (other prototypes). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the same arbitrary JSON
const plain = (v: unknown): any => JSON.parse(JSON.stringify(v));

/** The last status node `id` showed. */
const lastStatus = (id: string) => statuses(id).slice(-1)[0] ?? {};

describe('examples: acting on devices (runtime + simulator)', function () {
  this.timeout(30000);
  // RPC waits a hundredth of their time (a 10 s timeout: 100 ms); following a persistent RPC polls every 20-80 ms.
  const sim = useRuntime(
    { rpcTimeScale: 0.01 },
    { perTest: true, server: true, settings: { tbConnectionRpcPollInitialMs: 20, tbConnectionRpcPollMaxMs: 80 } },
  );
  const load = (file: string) =>
    loadExample(
      file,
      sim.url,
      [tbConnection, tbEntityQuery, tbSubscribe, tbTelemetry, tbAttributes, tbRpc],
      ['common/20-inject.js', 'function/10-function.js'],
    );

  /** Presses an inject node's button (as the editor's button does: the node sends its message). */
  const press = (node: N) => inject(node.id, {} as never);

  const thermostats = () =>
    sim.data
      .devices()
      .filter((d) => d.type === 'thermostat')
      .sort((a, b) => (a.name < b.name ? -1 : 1));

  it('Set the target temperature of every thermostat: query → attributes, the value set in the dialog, on every thermostat in one message', async () => {
    const byName = await load('Set the target temperature of every thermostat.json');
    // No node between the query and the attributes node: the query's list goes to msg.entity (Output to), the
    // attributes node saves the value its dialog names (Values: targetTemperature from msg.target).
    const query = byName('all thermostats');
    const attrs = byName('set targetTemperature');
    assert.deepEqual([query.output, query.wires], ['entity', [[attrs.id]]]);
    assert.deepEqual(
      [attrs.valuesFrom, attrs.values],
      ['rows', [{ key: 'targetTemperature', type: 'msg', value: 'target' }]],
    );
    const results = new Collector(byName('results').id);
    const failed = new Collector(byName('failed').id);
    const all = thermostats();
    assert.equal(all.length, 20);
    const targets = () =>
      new Set(all.map((d) => sim.data.attributeOf(d.id, 'SHARED_SCOPE', 'targetTemperature')?.value));
    assert.ok(!targets().has(17), 'the seed: no thermostat at 17 before');

    for (const [inject, target, pushes] of [
      ['22:00: 17 °C at night', 17, 1],
      ['7:00: 21 °C by day', 21, 2],
    ] as const) {
      press(byName(inject));
      const out = await results.until(() => true, 15000);
      assert.equal((out.payload as Rec[]).length, 20);
      assert.equal(out.failed, 0);
      // In the order of the query's list (by name), each ok.
      assert.deepEqual(
        (out.payload as Rec[]).map((r) => [r.entity.id, r.ok]),
        all.map((d) => [d.id, true]),
      );
      assert.deepEqual([...targets()], [target], `${inject}: the same target on every thermostat`);
      for (const d of all)
        assert.equal(sim.telemetry.sharedPushes(d.id), pushes, `${d.name}: the new target was pushed to the device`);
      assert.match(String(lastStatus(attrs.id).text), /bulkDone/);
    }
    assert.equal(failed.all.length, 0, 'nothing failed');

    // One thermostat refuses (a 403 bare string, as ThingsBoard answers): a partial failure, named by "which failed?".
    const b101 = sim.data.mustFindByName('DEVICE', 'Thermo B-101');
    sim.faults.add({
      path: `/api/plugins/telemetry/DEVICE/${b101.id}/attributes/SHARED_SCOPE`,
      status: 403,
      body: "You don't have permission to perform this operation!",
    });
    press(byName('7:00: 21 °C by day'));
    const partial = await results.until(() => true, 15000);
    assert.equal(partial.failed, 1);
    const names = await failed.until(() => true);
    const lines = plain(names.payload) as string[];
    assert.equal(lines.length, 1);
    assert.ok(lines[0].startsWith(`${b101.id}: `), lines[0]);
    assert.match(lines[0], /You don't have permission to perform this operation!/, "the server's words");
    const s = lastStatus(byName('set targetTemperature').id);
    assert.deepEqual([s.fill, /bulkPartial/.test(String(s.text))], ['yellow', true]);
  });

  it('Record a computed value: a reported temperature and humidity give a dew point saved on the same device, once', async () => {
    const byName = await load('Record a computed value.json');
    const saved = new Collector(byName('saved').id);
    await statusWhere(byName('thermostats').id, (s) => s.fill === 'green');
    const thermo = sim.data.mustFindByName('DEVICE', 'Thermo B-203');
    sim.data.setTelemetry(thermo.id, { temperature: dbl(25), humidity: long(50) });
    const out = await saved.until(() => true, 8000);
    const [record] = plain(out.payload) as Array<{ ts: number; values: Rec }>;
    assert.deepEqual(record.values, { dewPoint: 13.9 });
    assert.equal(out.topic, thermo.id, 'the device came from msg.topic');
    const stored = sim.data.latestOf(thermo.id, 'dewPoint');
    assert.deepEqual([stored?.type, stored?.value, stored?.ts], ['DOUBLE', 13.9, record.ts]);
    // Saving dewPoint does not set the subscription off again: the next save is the next report's.
    sim.data.setTelemetry(thermo.id, { temperature: dbl(20), humidity: long(60) });
    const next = await saved.until(() => true, 8000);
    assert.deepEqual(plain(next.payload)[0].values, { dewPoint: 12 });
    assert.equal(sim.telemetry.saves(thermo.id).length, 2);
    assert.equal(saved.all.length, 2);
  });

  it('Command a device and wait for its answer: a two-way reply; persistent to every thermostat, followed to each answer', async () => {
    const byName = await load('Command a device and wait for its answer.json');
    const reply = new Collector(byName('reply').id);
    const answers = new Collector(byName('answers').id);
    const error = new Collector(byName('error').id);
    const first = thermostats()[0];

    // The device picked by name in the dialog: Thermo A-101, the first thermostat by name (the simulator's ids are
    // stable).
    assert.equal(first.name, 'Thermo A-101');
    assert.deepEqual(
      [byName('getState').targetType, JSON.parse(String(byName('getState').target))],
      ['json', { entityType: 'DEVICE', id: first.id }],
    );
    press(byName('ask Thermo A-101'));
    const r = await reply.until(() => true, 8000);
    // The simulated device echoes the call; the example's Params are "no params": {} is sent, not the inject's
    // timestamp.
    assert.deepEqual(r.payload, { method: 'getState', params: {} });
    assert.deepEqual(r.rpc, { method: 'getState', params: {}, status: 'SUCCESSFUL' });
    assert.deepEqual(
      sim.rpc
        .calls()
        .filter((c) => c.method === 'getState')
        .map((c) => c.deviceId),
      [first.id],
    );

    // The query's list goes straight to the command (Output to msg.entity); its params are fixed in the dialog.
    assert.deepEqual(byName('all thermostats').wires, [[byName('setFanSpeed (persistent)').id]]);
    press(byName('fan speed 3 on every thermostat'));
    const a = await answers.until(() => true, 15000);
    const list = a.payload as Rec[];
    assert.equal(list.length, 20);
    assert.equal(a.failed, 0);
    for (const [i, d] of thermostats().entries()) {
      assert.equal(list[i].entity.id, d.id);
      assert.equal(list[i].ok, true);
      assert.deepEqual(list[i].payload, { method: 'setFanSpeed', params: { speed: 3 } });
      assert.deepEqual(
        [list[i].rpc.params, list[i].rpc.status],
        [{ speed: 3 }, 'SUCCESSFUL'],
        'msg.rpc says which params were sent',
      );
    }
    const calls = sim.rpc.calls().filter((c) => c.method === 'setFanSpeed');
    assert.equal(calls.length, 20, 'each thermostat got the command once');
    assert.ok(calls.every((c) => c.persistent && !c.oneway));

    // A thermostat that never answers: no reply within the timeout, the error (with its usual causes) at the catch
    // node.
    sim.rpc.setDevice(first.id, { mode: 'silent' });
    press(byName('ask Thermo A-101'));
    const e = await error.until(() => true, 8000);
    assertCode(e.error as Rec, 'TB_RPC_NO_REPLY');
    assert.match(
      String((e.error as Rec).message),
      /online, subscribed to RPC.*"rpc call request" node: .* did not answer/,
    );
  });

  it('Last 24 hours, hourly average: rows by hour of the device picked by name, oldest first, and the data of a line chart', async () => {
    const first = thermostats()[0];
    assert.equal(first.name, 'Thermo A-101', 'the device the example picks by name');
    // Four points an hour over the last day, 21 and 23 °C in turn: every full hour averages 22.
    const now = Date.now();
    for (let k = 1; k <= 95; k++)
      sim.data.setTelemetry(first.id, { temperature: dbl(k % 2 ? 21 : 23), humidity: long(50) }, now - k * 15 * 60000);
    const byName = await load('Last 24 hours, hourly average.json');
    assert.deepEqual(
      byName('every hour').wires,
      [[byName('hourly average, 24 h').id]],
      'no node between the inject and the telemetry node',
    );
    const rows = new Collector(byName('rows').id);
    const chart = new Collector(byName('chart data').id);
    press(byName('every hour'));
    const out = await rows.until(() => true, 8000);
    const list = out.payload as Array<{ ts: number; temperature: number; humidity: number }>;
    assert.ok(list.length >= 24 && list.length <= 25, `${list.length} hourly rows`);
    for (let i = 1; i < list.length; i++)
      assert.equal(list[i].ts - list[i - 1].ts, HOUR, 'one row an hour, oldest first');
    for (const row of list.slice(1, -1)) assert.deepEqual([row.temperature, row.humidity], [22, 50]);
    assert.ok(
      list[0].ts >= now - 24 * HOUR && list[list.length - 1].ts <= Date.now(),
      'within the last 24 hours, stamped mid-hour',
    );
    const c = await chart.until(() => true);
    const [series] = plain(c.payload) as Array<{
      series: string[];
      data: Array<Array<{ x: number; y: number }>>;
      labels: string[];
    }>;
    assert.deepEqual(series.series, ['temperature', 'humidity']);
    assert.deepEqual(
      series.data[0].map((p) => p.x),
      list.map((r) => r.ts),
    );
    assert.deepEqual(
      series.data[1].map((p) => p.y),
      list.map(() => 50),
    );
  });
});
