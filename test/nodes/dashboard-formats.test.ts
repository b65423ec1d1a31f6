/**
 * The shapes for Node-RED's Dashboard 2 in the real runtime against the simulator over loopback: tb-subscribe's
 * chart format (the first page as one list that replaces, then one message per changed value, the series named
 * after the entity when several are watched) and table format (the whole table of alarm rows in every message),
 * tb-alarm-query's table format, the counts' topic, and a table row fed to tb-alarm-action as it is.
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim';
import tbAlarmAction from '../../src/nodes/tb-alarm-action/index';
import tbAlarmQuery from '../../src/nodes/tb-alarm-query/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityCount from '../../src/nodes/tb-entity-count/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import { Collector, errorsLogged, flowsOn, key, statuses, useRuntime, type Msg } from '../support/runtime';
import { waitFor } from '../support/wait';

const NODES = [tbConnection, tbSubscribe, tbAlarmQuery, tbAlarmAction, tbEntityCount];
const NOW = BASE_TIME + HOUR;
type Rec = Record<string, unknown>;
type Point = { series: string; key: string; ts: number; value: unknown };

const NAME = { type: 'ENTITY_FIELD', key: 'name' };
const THERMOSTATS = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [NAME],
  latestValues: [
    { type: 'TIME_SERIES', key: 'temperature' },
    { type: 'TIME_SERIES', key: 'humidity' },
  ],
  pageLink: { page: 0, pageSize: 100, sortOrder: { key: NAME, direction: 'ASC' } },
};
const ACTIVE_ALARMS = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  pageLink: {
    page: 0,
    pageSize: 100,
    statusList: ['ACTIVE'],
    sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
  },
};
/** The columns of an alarm row, in order. */
const COLUMNS = ['originator', 'type', 'severity', 'status', 'created', 'acknowledged', 'cleared', 'assignee', 'id'];

function node(id: string, type: string, props: Rec): Rec {
  return { id, type, connection: 'c1', wires: [['out']], ...props };
}
function sub(id: string, kind: string, query: unknown, format: string): Rec {
  return node(id, 'tb-subscribe', { kind, queryType: 'json', query: JSON.stringify(query), format });
}

describe('formats for Dashboard 2 (runtime + simulator)', function () {
  const sim = useRuntime({ now: () => NOW }, { reset: (s) => s.resetRequests() });
  const { load, results } = flowsOn(sim, NODES);
  const dev = (name: string) => sim.data.mustFindByName('DEVICE', name);
  let ts = NOW;
  const nextTs = () => ++ts;

  describe('tb-subscribe, for a chart', () => {
    it('several entities: the first page as ONE list of points, oldest first, to replace; then one message per changed value, its topic "<name> · <key>"', async () => {
      await load([sub('s', 'entityData', THERMOSTATS, 'chart')]);
      const c = new Collector('out');
      const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
      assert.equal(c.all.indexOf(snap), 0, 'the snapshot first');
      assert.equal(snap.action, 'replace');
      const points = snap.payload as Point[];
      assert.ok(points.length >= 20, `a point per thermostat's value (${points.length})`);
      for (let i = 1; i < points.length; i++) assert.ok(points[i - 1].ts <= points[i].ts, 'oldest first');
      const a101 = points.find((p) => p.series === 'Thermo A-101 · temperature');
      assert.deepEqual(a101, { series: 'Thermo A-101 · temperature', key: 'temperature', ts: BASE_TIME, value: 21.5 });
      const b102 = points.filter((p) => p.series.startsWith('Thermo B-102 · '));
      assert.deepEqual(
        b102.map((p) => [p.key, p.value]).sort(),
        [
          ['humidity', 45],
          ['temperature', 'n/a'],
        ],
        'a number stored as text is a number; other text stays text',
      );
      assert.equal(snap.topic, 'entityData', 'several series: the kind, as before');

      const a102 = dev('Thermo A-102');
      const mark = c.all.length;
      const t1 = nextTs();
      sim.data.setTelemetry(a102.id, { temperature: 19.5, humidity: '47' }, t1);
      await c.until((m) => m.event === 'update' && (m.payload as Point).key === 'humidity');
      await c.until((m) => m.event === 'update' && (m.payload as Point).key === 'temperature', 8000, true);
      const sent = c.since(mark);
      assert.equal(sent.length, 2, 'one message per changed value');
      const byKey = Object.fromEntries(sent.map((m) => [(m.payload as Point).key, m]));
      assert.deepEqual(byKey.temperature.payload, {
        series: 'Thermo A-102 · temperature',
        key: 'temperature',
        ts: t1,
        value: 19.5,
      });
      assert.equal(byKey.temperature.topic, 'Thermo A-102 · temperature');
      assert.equal(byKey.temperature.action, 'append');
      assert.deepEqual(byKey.temperature.entity, { entityType: 'DEVICE', id: a102.id });
      assert.deepEqual((byKey.humidity.payload as Point).value, 47);
      assert.equal(byKey.humidity.topic, 'Thermo A-102 · humidity');
      await waitFor(() => statuses('s').some((s) => s.fill === 'green' && s.text === key('watchingEntities')));
    });

    it('one entity: the series is the key alone, and so is msg.topic of the first page of one key', async () => {
      const a103 = dev('Thermo A-103');
      const one = {
        entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: a103.id } },
        entityFields: [NAME],
        latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
      };
      await load([sub('s', 'entityData', one, 'chart')]);
      const c = new Collector('out');
      const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
      const points = snap.payload as Point[];
      assert.equal(points.length, 1);
      assert.equal(points[0].series, 'temperature');
      assert.equal(snap.topic, 'temperature');
      const t1 = nextTs();
      sim.data.setTelemetry(a103.id, { temperature: 27 }, t1);
      const u = await c.until((m) => m.event === 'update');
      assert.equal(u.topic, 'temperature');
      assert.deepEqual(u.payload, { series: 'temperature', key: 'temperature', ts: t1, value: 27 });
    });

    it('chart for alarms, table for entities: a configuration problem, every message refused', async () => {
      await load([sub('a', 'alarmData', ACTIVE_ALARMS, 'chart'), sub('e', 'entityData', THERMOSTATS, 'table')]);
      await waitFor(() => statuses('a').some((s) => s.fill === 'red' && s.shape === 'dot'));
      await waitFor(() => statuses('e').some((s) => s.fill === 'red' && s.shape === 'dot'));
      const logged = errorsLogged('a').map(String).join(' | ');
      assert.match(logged, /format chart is for entity data/);
      assert.match(errorsLogged('e').map(String).join(' | '), /format table is for alarm data/);
      const { error } = await results.fails('a', {}, 'TB_CONFIG', /format chart is for entity data/);
      assert.ok(error);
    });
  });

  describe('alarms, for a table', () => {
    it('tb-subscribe: the whole table in every message, to replace: a new alarm first, an acknowledged one in its place, a cleared one gone', async () => {
      await load([sub('s', 'alarmData', ACTIVE_ALARMS, 'table')]);
      const c = new Collector('out');
      const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
      assert.equal(snap.action, 'replace');
      const rows = snap.payload as Rec[];
      assert.equal(rows.length, 9, 'every active alarm of the devices');
      for (const r of rows) assert.deepEqual(Object.keys(r), COLUMNS);

      const tech = sim.data.users().find((u) => u.name === 'tech@thingsboard.org')!;
      const a = sim.data.createAlarm({
        originator: dev('Thermo A-101').id,
        type: 'Filter Clogged',
        severity: 'MAJOR',
        assigneeId: tech.id,
      });
      const created = await c.until((m) => m.event === 'created');
      assert.equal(created.action, 'replace');
      let table = created.payload as Rec[];
      assert.equal(table.length, 10);
      assert.deepEqual(table[0], {
        originator: 'Thermo A-101',
        type: 'Filter Clogged',
        severity: 'MAJOR',
        status: 'ACTIVE_UNACK',
        created: sim.data.getAlarm(a.id)!.createdTime,
        acknowledged: null,
        cleared: null,
        assignee: 'Terry Tech',
        id: a.id,
      });
      assert.deepEqual(
        table.slice(1).map((r) => r.id),
        rows.map((r) => r.id),
      );

      sim.data.ackAlarm(a.id, NOW + 5);
      const acked = await c.until((m) => m.event === 'acknowledged');
      table = acked.payload as Rec[];
      assert.equal(table.length, 10);
      assert.equal(table[0].id, a.id, 'in its place');
      assert.equal(table[0].acknowledged, NOW + 5);
      assert.equal(table[0].status, 'ACTIVE_ACK');

      sim.data.clearAlarm(a.id);
      const cleared = await c.until((m) => m.event === 'cleared');
      table = cleared.payload as Rec[];
      assert.deepEqual(
        table.map((r) => r.id),
        rows.map((r) => r.id),
        'a cleared alarm left the page of active alarms: its row is gone',
      );
    });

    it('tb-alarm-query: one row per alarm with action replace (one message per alarm: no action); a count gives its topic', async () => {
      const query = JSON.stringify(ACTIVE_ALARMS);
      await load([
        node('q', 'tb-alarm-query', { queryType: 'json', query, format: 'table' }),
        node('split', 'tb-alarm-query', { queryType: 'json', query, format: 'table', split: true }),
        node('n', 'tb-alarm-query', {
          operation: 'count',
          queryType: 'json',
          query: JSON.stringify({ statusList: ['ACTIVE'], severityList: ['CRITICAL'] }),
          topic: 'critical alarms',
        }),
        node('plain', 'tb-alarm-query', {
          operation: 'count',
          queryType: 'json',
          query: JSON.stringify({ statusList: ['ACTIVE'] }),
        }),
        node('e', 'tb-entity-count', {
          queryType: 'json',
          query: JSON.stringify({ entityFilter: THERMOSTATS.entityFilter }),
          topic: ' thermostats ',
        }),
      ]);
      const out = await results.ok('q', { topic: 'x' });
      assert.equal(out.action, 'replace');
      const rows = out.payload as Rec[];
      assert.equal(rows.length, 9);
      for (const r of rows) assert.deepEqual(Object.keys(r), COLUMNS);
      for (let i = 1; i < rows.length; i++)
        assert.ok((rows[i - 1].created as number) >= (rows[i].created as number), "the query's order");

      const first = await results.ok('split', {});
      assert.equal(first.action, undefined, 'one row per message: a table set to append collects them');
      assert.deepEqual(Object.keys(first.payload as Rec), COLUMNS);
      for (let i = 1; i < rows.length; i++) await results.next();

      const critical = sim.data.alarms().filter((a) => !a.cleared && a.severity === 'CRITICAL').length;
      const n = await results.ok('n', { topic: 'x' });
      assert.deepEqual([n.payload, n.topic], [critical, 'critical alarms']);
      const plain = await results.ok('plain', { topic: 'as it came' });
      assert.equal(plain.topic, 'as it came', 'no topic set: msg.topic as it came');
      const e = await results.ok('e', {});
      assert.deepEqual([e.payload, e.topic], [20, 'thermostats']);
    });

    it("a row sent back by a table (a button's message) into tb-alarm-action acknowledges that alarm, without glue", async () => {
      const a = sim.data.createAlarm({ originator: dev('Thermo B-101').id, type: 'Too Warm', severity: 'CRITICAL' });
      await load([
        node('q', 'tb-alarm-query', { queryType: 'json', query: JSON.stringify(ACTIVE_ALARMS), format: 'table' }),
        node('ack', 'tb-alarm-action', { operation: 'acknowledge' }),
        // the live table's messages go to a helper of their own, apart from the outputs the test reads in turn
        { ...sub('s', 'alarmData', ACTIVE_ALARMS, 'table'), wires: [['table']] },
        { id: 'table', type: 'helper', wires: [] },
        node('clear', 'tb-alarm-action', { operation: 'clear' }),
      ]);
      const table = new Collector('table');
      await table.until((m) => m.event === 'snapshot', 8000, true);
      const rows = (await results.ok('q', {})).payload as Rec[];
      const row = rows.find((r) => r.id === a.id)!;
      // What a Dashboard 2 table sends for a click on a button column: the row, the column, and its own action.
      const out = await results.ok('ack', { payload: row, column: 'ack', action: 'button_click' } as Msg);
      assert.equal(out.topic, a.id);
      assert.equal(out.alreadyDone, false);
      assert.equal(sim.data.getAlarm(a.id)!.acknowledged, true);
      // A row of the live table, as a row click sends it, is read the same way.
      const acked = await table.until((m) => m.event === 'acknowledged', 8000, true);
      const live = (acked.payload as Rec[]).find((r) => r.id === a.id)!;
      assert.equal(live.acknowledged, NOW);
      const cleared = await results.ok('clear', { payload: live, action: 'row_click' } as Msg);
      assert.equal(cleared.topic, a.id);
      assert.equal(sim.data.getAlarm(a.id)!.cleared, true);
    });
  });
});
