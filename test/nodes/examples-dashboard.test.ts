/**
 * The dashboard example as shipped in examples/, run in the real runtime against the simulator with the demo's data:
 * its Dashboard 2 widgets replaced by helper nodes, so that what our nodes send them is read as they receive it (the
 * widgets themselves are tested in a real Dashboard 2 by test/browser/dashboard.browser.ts). The day's chart gets the
 * points of three thermostats oldest first, the live chart their latest values then each change, the table the
 * active alarms as rows, and a row as the table's button sends it acknowledges its alarm.
 */
import assert from 'node:assert/strict';
import { startDemoActivity } from '../../scripts/demo-activity';
import { dbl } from '../../sim';
import tbAlarmAction from '../../src/nodes/tb-alarm-action/index';
import tbAlarmQuery from '../../src/nodes/tb-alarm-query/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import tbTelemetry from '../../src/nodes/tb-telemetry/index';
import { Collector, coreNode, exampleFlow, helper, inject, TENANT, useRuntime, type Msg } from '../support/runtime';

type Rec = Record<string, unknown>;
const FILE = 'Dashboard of temperatures, live line and alarms.json';
const HOUR = 3600000;
const THERMOSTATS = ['Thermo A-101', 'Thermo A-102', 'Thermo A-103'];

describe('examples: a dashboard (runtime + simulator)', function () {
  this.timeout(30000);
  const sim = useRuntime({}, { perTest: true });
  let stopActivity: () => void = () => undefined;
  afterEach(() => stopActivity());

  /** Loads the example with its widgets as helper nodes (the dashboard's own configuration left out). */
  async function load(): Promise<(type: string, name: string) => Rec & { id: string; wires: string[][] }> {
    stopActivity = startDemoActivity(sim, { clock: false });
    const { nodes } = exampleFlow(FILE, sim.url);
    const widgets = new Set(['ui-chart', 'ui-table', 'ui-gauge']);
    const flow = nodes
      .filter((n) => !['ui-base', 'ui-page', 'ui-theme', 'ui-group'].includes(n.type))
      .map((n) => (widgets.has(n.type) ? { ...n, type: 'helper', widget: n.type } : n));
    await helper.load(
      [
        tbConnection,
        tbEntityQuery,
        tbTelemetry,
        tbSubscribe,
        tbAlarmQuery,
        tbAlarmAction,
        coreNode('common/20-inject.js'),
      ] as never,
      flow as never,
      { c1: TENANT },
    );
    return (type, name) => {
      // exampleFlow made the debug nodes helper nodes too
      const typeOf = (x: Rec) => x.widget ?? (x.type === 'helper' ? 'debug' : x.type);
      const n = flow.find((x) => typeOf(x) === type && x.name === name);
      assert.ok(n, `the example has a ${type} named "${name}"`);
      return n as unknown as Rec & { id: string; wires: string[][] };
    };
  }

  it("a day's chart: at deploy, one list of the three thermostats' hourly averages, oldest first, to replace", async () => {
    const node = await load();
    const day = new Collector(node('ui-chart', 'a day, hourly').id);
    const msg = await day.until(() => true, 8000, true);
    assert.equal(msg.action, 'replace');
    const points = msg.payload as Array<{ series: string; key: string; ts: number; value: unknown }>;
    assert.deepEqual(
      [...new Set(points.map((p) => p.series))].sort(),
      THERMOSTATS.map((t) => `${t} · temperature`),
    );
    assert.equal(points.length, 3 * 24);
    assert.ok(
      points.every((p, i) => i === 0 || p.ts >= points[i - 1].ts),
      'oldest first',
    );
    for (const p of points) {
      assert.equal(p.key, 'temperature');
      assert.equal(typeof p.value, 'number', `${p.series} at ${p.ts}: a number`);
      const device = sim.data.mustFindByName('DEVICE', p.series.replace(/ · temperature$/, ''));
      const stored = sim.data.history(device.id, 'temperature', p.ts - HOUR / 2, p.ts + HOUR / 2 - 1);
      assert.deepEqual(
        stored.map((s) => s.value),
        [p.value],
        `${p.series} at ${new Date(p.ts).toISOString()}: its hour's value`,
      );
    }
  });

  it('the live chart: the latest values as a list to replace, then one point per changed value, to append', async () => {
    const node = await load();
    const live = new Collector(node('ui-chart', 'live line').id);
    const first = await live.until((m) => m.action === 'replace', 8000, true);
    assert.deepEqual(
      (first.payload as Rec[]).map((p) => p.series).sort(),
      THERMOSTATS.map((t) => `${t} · temperature`),
    );
    const device = sim.data.mustFindByName('DEVICE', 'Thermo A-102');
    const { temperature } = sim.data.setTelemetry(device.id, { temperature: dbl(24.7) });
    const next = await live.until((m) => m.action === 'append');
    assert.equal(next.topic, 'Thermo A-102 · temperature');
    assert.deepEqual(next.payload, {
      series: 'Thermo A-102 · temperature',
      key: 'temperature',
      ts: temperature.ts,
      value: 24.7,
    });
  });

  it("the alarms: the table's rows and the critical count; a row as the button sends it acknowledges its alarm", async () => {
    const node = await load();
    const table = new Collector(node('ui-table', 'active alarms').id);
    const gauge = new Collector(node('ui-gauge', 'critical alarms').id);
    const acked = new Collector(node('debug', 'acknowledged').id);
    const first = await table.until(() => true, 8000, true);
    assert.equal(first.action, 'replace');
    const active = sim.data.alarms().filter((a) => !a.cleared);
    const rows = first.payload as Rec[];
    assert.equal(rows.length, Math.min(10, active.length));
    const critical = active.filter((a) => a.severity === 'CRITICAL').length;
    const count = await gauge.until(() => true, 8000, true);
    assert.deepEqual([count.payload, count.topic], [critical, 'critical alarms']);
    // The demo's alarm, as the table's Acknowledge button sends its row.
    const row = rows.find((r) => r.type === 'Demo Overheat')!;
    assert.ok(row, 'the demo alarm has its row');
    assert.deepEqual(node('ui-table', 'active alarms').wires, [[node('tb-alarm-action', 'acknowledge').id]]);
    const click: Msg = { payload: row, column: 'Acknowledge', action: 'button_click' };
    inject(node('tb-alarm-action', 'acknowledge').id, click);
    const done = await acked.until(() => true);
    assert.equal((done.payload as Rec).acknowledged, true);
    assert.equal(sim.data.getAlarm(String(row.id))?.acknowledged, true);
    // The table follows: the same alarm, acknowledged, in its place.
    const after = await table.until((m) =>
      (m.payload as Rec[]).some((r) => r.id === row.id && r.status === 'ACTIVE_ACK'),
    );
    assert.deepEqual(
      (after.payload as Rec[]).map((r) => r.id),
      rows.map((r) => r.id),
    );
  });
});
