/**
 * tb-subscribe and tb-alarm-status in the real runtime against the simulator's WebSocket API over loopback:
 * one socket per connection, snapshots and updates, counts, alarm events, alarm status, control messages,
 * close/redeploy hygiene, reconnects (drop, restart, expired token, 1008), dead peers, malformed frames.
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR, TENANT_API_KEY } from '../../sim';
import type { TbConnectionNode } from '../../src/node-red/connection';
import tbAlarmStatus from '../../src/nodes/tb-alarm-status/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import {
  Collector,
  connectionNode,
  errorsLogged,
  flow,
  helper,
  inject,
  key,
  message,
  messages,
  Msg,
  statuses,
  statusWhere,
  TENANT,
  assertCode,
  useRuntime,
} from '../support/runtime';
import { waitFor } from '../support/wait';

const NODES = [tbConnection, tbSubscribe, tbAlarmStatus];
type Rec = Record<string, unknown>;
const NOW = BASE_TIME + HOUR;

const THERMOSTATS = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
  pageLink: { page: 0, pageSize: 100, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
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

describe('live nodes: tb-subscribe and tb-alarm-status (runtime + simulator WebSocket)', function () {
  const sim = useRuntime(
    { now: () => NOW, wsDynamicRefreshMs: 100 },
    {
      settings: {
        tbConnectionReconnectInitialMs: 20,
        tbConnectionReconnectMaxMs: 200,
        tbConnectionPolicyBackoffMs: 500,
        tbConnectionAuthBackoffMs: 500,
        tbConnectionRefusalCooldownMs: 60000,
      },
    },
  );
  // After the flows are unloaded (useRuntime's afterEach runs first): no node takes the held frames or the auth.
  afterEach(() => {
    sim.ws.refuseAuth(false);
    sim.ws.pauseFrames(false);
  });
  let ts = NOW;
  const nextTs = () => ++ts;

  const load = (nodes: Rec[], creds: Rec = TENANT) =>
    helper.load(NODES, flow(connectionNode(sim.url), ...nodes), { c1: creds });
  const hub = () => (helper.getNode('c1') as unknown as TbConnectionNode).live();
  const dev = (name: string) => sim.data.mustFindByName('DEVICE', name);

  it('three subscribe nodes on one connection share one socket; snapshots and counts arrive', async () => {
    const before = sim.ws.connections().total;
    await load([
      sub('s1', 'entityData', THERMOSTATS),
      sub('s2', 'entityCount', { entityFilter: THERMOSTATS.entityFilter }),
      sub('s3', 'alarmCount', { statusList: ['ACTIVE'] }),
    ]);
    const c = new Collector('out');
    const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
    assert.equal((snap.payload as unknown[]).length, 20);
    assert.deepEqual(snap.page, { page: 0, pageSize: 100, totalPages: 1, totalElements: 20, hasNext: false });
    await c.until((m) => m.event === 'count' && m.payload === 20, 8000, true);
    await c.until((m) => m.event === 'count' && m.payload === 10, 8000, true);
    assert.equal(sim.ws.connections().total - before, 1, 'exactly one WebSocket');
    assert.equal(sim.ws.connections().open, 1);
    assert.equal(hub().stats.sockets, 1);
    assert.equal(hub().stats.sent, 1, 'the auth command and the three subscriptions went out in one message');
    await waitFor(() => statuses('s1').some((s) => s.fill === 'green' && s.text === key('watchingEntities')));
    await waitFor(() => statuses('s2').some((s) => s.fill === 'green' && s.text === key('liveCount')));
    await waitFor(() => statuses('s3').some((s) => s.fill === 'green' && s.text === key('liveCount')));
  });

  it('entity data: a snapshot, then one update per change with the full state and the changed keys', async () => {
    await load([sub('s', 'entityData', THERMOSTATS)]);
    const c = new Collector('out');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    const a101 = dev('Thermo A-101');
    sim.data.setTelemetry(a101.id, { temperature: 30.5 }, nextTs());
    const u = await c.until((m) => m.event === 'update');
    assert.equal(u.topic, a101.id);
    assert.deepEqual(u.changed, ['temperature']);
    assert.equal((u.payload as Rec).temperature, 30.5);
    assert.equal((u.payload as Rec).name, 'Thermo A-101');
    assert.equal((u.payload as Rec).id, a101.id);
  });

  it('entity data: dynamic pages report entities added and removed; series and history come as their own events', async () => {
    await load([
      sub(
        's',
        'entityData',
        { ...THERMOSTATS, pageLink: { ...THERMOSTATS.pageLink, dynamic: true } },
        {
          tsKeys: 'temperature',
          tsWindow: 400, // the simulator's data lives around 2026-01-01; the node counts back from the real clock
          tsWindowUnit: 'days',
          tsLimit: 5,
          history: true,
          historyKeys: 'humidity',
          historyRange: 400,
          historyRangeUnit: 'days',
          historyLimit: 100,
          historyAgg: 'NONE',
        },
      ),
    ]);
    const c = new Collector('out');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    const hist = await c.until((m) => m.event === 'history', 8000, true);
    const first = (hist.payload as Array<{ series: Record<string, unknown[]> }>)[0];
    assert.ok(Array.isArray(first.series.humidity) && first.series.humidity.length > 0);
    const e = sim.data.addEntity({ entityType: 'DEVICE', name: 'Thermo New', type: 'thermostat' });
    const added = await c.until((m) => m.event === 'added');
    assert.equal(added.topic, e.id);
    const a102 = dev('Thermo A-102');
    sim.data.setTelemetry(a102.id, { temperature: 19.5 }, nextTs());
    const series = await c.until((m) => m.event === 'timeseries' && m.topic === a102.id);
    assert.deepEqual(((series.payload as Rec).series as Rec).temperature, [{ ts, value: 19.5 }]);
    sim.data.removeEntity(e.id);
    const removed = await c.until((m) => m.event === 'removed');
    assert.equal(removed.topic, e.id);
  });

  it('counts: the number at start and again only when it changes', async () => {
    await load([sub('s', 'entityCount', { entityFilter: { type: 'deviceType', deviceTypes: ['meter'] } })]);
    const c = new Collector('out');
    await c.until((m) => m.payload === 6, 8000, true);
    const e = sim.data.addEntity({ entityType: 'DEVICE', name: 'Meter New', type: 'meter' });
    await c.until((m) => m.payload === 7);
    sim.data.removeEntity(e.id);
    await c.until((m) => m.payload === 6);
    assert.deepEqual(
      c.all.map((m) => m.payload),
      [6, 7, 6],
    );
  });

  it('alarm data: created, acknowledged and cleared, each once', async () => {
    await load([sub('s', 'alarmData', ACTIVE_ALARMS)]);
    const c = new Collector('out');
    const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
    assert.equal((snap.payload as unknown[]).length, 9, 'every active alarm of the devices');
    const a = sim.data.createAlarm({ originator: dev('Thermo A-103').id, type: 'Filter Clogged', severity: 'MAJOR' });
    const created = await c.until((m) => m.event === 'created');
    assert.equal(created.topic, a.id);
    assert.equal((created.payload as Rec).type, 'Filter Clogged');
    assert.equal((created.payload as Rec).severity, 'MAJOR');
    const mark = c.all.length;
    sim.data.ackAlarm(a.id);
    const acked = await c.until((m) => m.event === 'acknowledged');
    assert.equal((acked.payload as Rec).acknowledged, true);
    sim.data.clearAlarm(a.id);
    const cleared = await c.until((m) => m.event === 'cleared');
    assert.equal(cleared.topic, a.id);
    assert.equal((cleared.payload as Rec).cleared, true);
    assert.deepEqual(
      c.since(mark).map((m) => m.event),
      ['acknowledged', 'cleared'],
    );
  });

  // The server's clock is the real one here, so the stored alarms (2026-01-01) are months old: a 24 h live window
  // would have none of them. Without a window the node sends timeWindow = now (withLiveWindow), back to the epoch.
  it('alarm data without a time window: alarms of any age in the snapshot, then created, acknowledged, cleared, also after a reconnect', async () => {
    sim.setNow(Date.now);
    try {
      const mark = sim.ws.commandsReceived().length;
      const sentAt = Date.now();
      const devices = { type: 'entityType', entityType: 'DEVICE' };
      await load([
        sub('s', 'alarmData', ACTIVE_ALARMS),
        sub('n', 'alarmCount', { entityFilter: devices, statusList: ['ACTIVE'] }, { wires: [['count']] }),
        { id: 'count', type: 'helper', wires: [] },
      ]);
      const c = new Collector('out');
      const cc = new Collector('count');
      const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
      const items = snap.payload as Rec[];
      assert.equal(items.length, 9, 'every active alarm of the devices');
      const dayAgo = sim.now() - 24 * HOUR;
      assert.ok(
        items.every((a) => (a.createdTime as number) < dayAgo),
        'all raised more than 24 h ago',
      );
      assert.ok(items.some((a) => a.originatorName === 'Thermo G-101' && a.createdTime === BASE_TIME - 12 * HOUR));
      const alarmCmds = () =>
        sim.ws
          .commandsReceived()
          .slice(mark)
          .filter((x) => x.type === 'ALARM_DATA');
      const pageLink = (i: number) => (alarmCmds()[i].cmd.query as Rec).pageLink as Rec;
      const window1 = pageLink(0).timeWindow as number;
      assert.ok(window1 >= sentAt && window1 <= Date.now(), `timeWindow = the client's now (${window1})`);
      assert.equal(pageLink(0).startTs ?? 0, 0);
      assert.equal(pageLink(0).endTs ?? 0, 0);
      await cc.until((m) => m.payload === 9, 8000, true); // a count without a window counts alarms of any age
      const a = sim.data.createAlarm({ originator: dev('Thermo A-103').id, type: 'Filter Clogged', severity: 'MAJOR' });
      const created = await c.until((m) => m.event === 'created');
      assert.equal(created.topic, a.id);
      await waitFor(() => cc.all.length === 2);
      sim.data.ackAlarm(a.id);
      assert.equal(((await c.until((m) => m.event === 'acknowledged')).payload as Rec).acknowledged, true);
      // a reconnect sends the window anew, from the client's clock at that moment
      sim.ws.dropAll();
      await waitFor(() => alarmCmds().length === 2);
      assert.ok((pageLink(1).timeWindow as number) >= window1);
      sim.data.clearAlarm(a.id);
      const cleared = await c.until((m) => m.event === 'cleared');
      assert.equal(cleared.topic, a.id);
      await waitFor(() => cc.all.length === 3);
      assert.deepEqual(
        c.all.map((m) => m.event),
        ['snapshot', 'created', 'acknowledged', 'cleared'],
      );
      assert.deepEqual(
        cc.all.map((m) => m.payload),
        [9, 10, 9],
      );
    } finally {
      sim.setNow(null);
    }
  });

  it('alarm data with its own timeWindow is sent as written: the last 24 h of the real clock hold no stored alarm; new ones still come', async () => {
    sim.setNow(Date.now);
    try {
      const mark = sim.ws.commandsReceived().length;
      const query = { ...ACTIVE_ALARMS, pageLink: { ...ACTIVE_ALARMS.pageLink, timeWindow: 24 * HOUR } };
      await load([sub('s', 'alarmData', query)]);
      const c = new Collector('out');
      const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
      assert.deepEqual(snap.payload, []);
      const sent = sim.ws
        .commandsReceived()
        .slice(mark)
        .find((x) => x.type === 'ALARM_DATA');
      assert.equal(((sent?.cmd.query as Rec).pageLink as Rec).timeWindow, 24 * HOUR);
      const a = sim.data.createAlarm({ originator: dev('Thermo A-103').id, type: 'Filter Clogged', severity: 'MAJOR' });
      assert.equal((await c.until((m) => m.event === 'created')).topic, a.id);
      sim.data.clearAlarm(a.id);
      assert.equal((await c.until((m) => m.event === 'cleared')).topic, a.id);
      assert.deepEqual(
        c.all.map((m) => m.event),
        ['snapshot', 'created', 'cleared'],
      );
    } finally {
      sim.setNow(null);
    }
  });

  it('alarm status: false/true transitions per watched entity; several entities; unsubscribe by message', async () => {
    const a103 = dev('Thermo A-103');
    const g103 = dev('Thermo G-103');
    await load([
      {
        id: 'as',
        type: 'tb-alarm-status',
        connection: 'c1',
        originatorType: 'DEVICE',
        originatorId: a103.id,
        typeList: '',
        severityList: 'CRITICAL,MAJOR',
        wires: [['out']],
      },
    ]);
    const c = new Collector('out');
    const first = await c.until(() => true, 8000, true);
    assert.equal(first.payload, false);
    assert.deepEqual(first.originator, { entityType: 'DEVICE', id: a103.id });
    const alarm = sim.data.createAlarm({ originator: a103.id, type: 'Overheat', severity: 'CRITICAL' });
    assert.equal((await c.until((m) => m.topic === a103.id && m.payload === true)).payload, true);
    sim.data.createAlarm({ originator: a103.id, type: 'Minor thing', severity: 'MINOR' });
    inject('as', { payload: { entityType: 'DEVICE', id: g103.id } });
    const g = await c.until((m) => m.topic === g103.id);
    assert.equal(g.payload, false);
    sim.data.clearAlarm(alarm.id);
    await c.until((m) => m.topic === a103.id && m.payload === false);
    assert.deepEqual(
      c.all.filter((m) => m.topic === a103.id).map((m) => m.payload),
      [false, true, false],
      'the MINOR alarm changed nothing',
    );
    const before = sim.ws.commandsReceived().length;
    inject('as', { payload: a103.id, action: 'unsubscribe' });
    await waitFor(() =>
      sim.ws
        .commandsReceived()
        .slice(before)
        .some((x) => x.type === 'ALARM_STATUS_UNSUBSCRIBE'),
    );
    sim.data.createAlarm({ originator: a103.id, type: 'After', severity: 'CRITICAL' });
    sim.data.createAlarm({ originator: g103.id, type: 'Marker', severity: 'CRITICAL' });
    await c.until((m) => m.topic === g103.id && m.payload === true);
    assert.deepEqual(
      c.all.filter((m) => m.topic === a103.id).map((m) => m.payload),
      [false, true, false],
      'A-103 is no longer watched',
    );
  });

  it('events: entity data sends only the chosen events, and the status still counts what is watched', async () => {
    const nothingYet = {
      ...THERMOSTATS,
      entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo Z' },
      pageLink: { ...THERMOSTATS.pageLink, dynamic: true },
    };
    await load([
      sub('u', 'entityData', THERMOSTATS, { events: 'update' }),
      sub('a', 'entityData', nothingYet, { events: ' added ', wires: [['added']] }),
      { id: 'added', type: 'helper', wires: [] },
    ]);
    const c = new Collector('out');
    const ca = new Collector('added');
    // No snapshot is sent, but the node knows its 20 thermostats and the empty page.
    await statusWhere('u', (s) => s.fill === 'green' && s.text === key('watchingEntities'));
    await waitFor(() => statuses('a').some((s) => s.text === key('watchingNone')));
    const a101 = dev('Thermo A-101');
    sim.data.setTelemetry(a101.id, { temperature: 31.5 }, nextTs());
    const u = await c.until((m) => m.event === 'update');
    assert.equal(u.topic, a101.id);

    const z1 = sim.data.addEntity({ entityType: 'DEVICE', name: 'Thermo Z-1', type: 'thermostat' });
    assert.equal((await ca.until((m) => m.event === 'added')).topic, z1.id);
    await waitFor(() => statuses('a').slice(-1)[0].text === key('watchingEntity'));
    const z2 = sim.data.addEntity({ entityType: 'DEVICE', name: 'Thermo Z-2', type: 'thermostat' });
    await ca.until((m) => m.event === 'added' && m.topic === z2.id);
    await waitFor(() => statuses('a').slice(-1)[0].text === key('watchingEntities'));
    // Removals are not sent, but the status follows them.
    sim.data.removeEntity(z1.id);
    await statusWhere('a', (s) => s.text === key('watchingEntity'));
    sim.data.removeEntity(z2.id);
    await statusWhere('a', (s) => s.text === key('watchingNone'));
    assert.deepEqual(
      ca.all.map((m) => m.event),
      ['added', 'added'],
    );
    assert.deepEqual(
      c.all.map((m) => m.event),
      ['update'],
      'the update node sent its update only',
    );
    assert.ok(
      statuses('u').every((s) => s.text !== key('watchingNone')),
      'the count was right without the snapshot being sent',
    );
  });

  it('events: "created" only on a CRITICAL alarm list = one message each time a critical alarm is raised', async () => {
    const critical = {
      ...ACTIVE_ALARMS,
      pageLink: { ...ACTIVE_ALARMS.pageLink, severityList: ['CRITICAL'], typeList: ['Raised In Test'] },
    };
    await load([sub('s', 'alarmData', critical, { events: 'created' })]);
    const c = new Collector('out');
    await statusWhere('s', (s) => s.fill === 'green' && s.text === key('noAlarmsYet'));
    const t103 = dev('Thermo A-103').id;
    sim.data.createAlarm({ originator: t103, type: 'Raised In Test', severity: 'MAJOR' }); // not on the page
    const a1 = sim.data.createAlarm({ originator: t103, type: 'Raised In Test', severity: 'CRITICAL' });
    assert.equal((await c.until((m) => m.event === 'created')).topic, a1.id);
    await waitFor(() => statuses('s').slice(-1)[0].text === key('oneAlarm'));
    const a2 = sim.data.createAlarm({
      originator: dev('Thermo G-103').id,
      type: 'Raised In Test',
      severity: 'CRITICAL',
    });
    assert.equal((await c.until((m) => m.event === 'created' && m.topic === a2.id)).topic, a2.id);
    await waitFor(() => statuses('s').slice(-1)[0].text === key('alarms'));
    // Acknowledged and cleared are not sent; the status still follows the page.
    sim.data.ackAlarm(a1.id);
    sim.data.clearAlarm(a1.id);
    await statusWhere('s', (s) => s.text === key('oneAlarm'));
    sim.data.clearAlarm(a2.id);
    await statusWhere('s', (s) => s.text === key('noAlarmsYet'));
    assert.deepEqual(
      c.all.map((m) => `${m.event}:${m.topic}`),
      [`created:${a1.id}`, `created:${a2.id}`],
    );
  });

  it('events: missing, empty or every name = all events; counts ignore the setting', async () => {
    const all = 'snapshot, update,added ,removed';
    await load([
      sub('s1', 'entityData', THERMOSTATS),
      sub('s2', 'entityData', THERMOSTATS, { events: '' }),
      sub('s3', 'entityData', THERMOSTATS, { events: ' , ' }),
      sub('s4', 'entityData', THERMOSTATS, { events: all, wires: [['all']] }),
      sub('s5', 'alarmData', ACTIVE_ALARMS, { events: ['snapshot', 'created'], wires: [['alarms']] }),
      sub('s6', 'alarmCount', { statusList: ['ACTIVE'] }, { events: 'snapshot', wires: [['count']] }),
      { id: 'all', type: 'helper', wires: [] },
      { id: 'alarms', type: 'helper', wires: [] },
      { id: 'count', type: 'helper', wires: [] },
    ]);
    const c = new Collector('out');
    const call = new Collector('all');
    const calarms = new Collector('alarms');
    const ccount = new Collector('count');
    await waitFor(() => c.all.filter((m) => m.event === 'snapshot').length === 3, 8000);
    await call.until((m) => m.event === 'snapshot', 8000, true);
    await calarms.until((m) => m.event === 'snapshot', 8000, true);
    assert.equal(typeof (await ccount.until((m) => m.event === 'count', 8000, true)).payload, 'number');
    sim.data.setTelemetry(dev('Thermo A-102').id, { temperature: 27.5 }, nextTs());
    await waitFor(() => c.all.filter((m) => m.event === 'update').length === 3);
    await call.until((m) => m.event === 'update', 8000, true);
  });

  it('events: an unknown name, or one of the other kind, is a configuration problem: red dot, log line, every message refused', async () => {
    const before = sim.ws.commandsReceived().length;
    await load([
      sub('e', 'entityData', THERMOSTATS, { events: 'snapshot,created' }),
      sub('a', 'alarmData', ACTIVE_ALARMS, { events: 'created, bogus, Cleared' }),
      sub('n', 'entityData', THERMOSTATS, { events: 42 }),
    ]);
    for (const [id, re] of [
      [
        'e',
        /^events: "created" is not an event of entity data; choose from snapshot, update, added, removed \(empty = all; counts, time series and history are always sent\)$/,
      ],
      [
        'a',
        /^events: "bogus", "Cleared" are not events of alarm data; choose from snapshot, created, acknowledged, cleared, updated, removed /,
      ],
      [
        'n',
        /^events must be a comma-separated list of entity data events: choose from snapshot, update, added, removed/,
      ],
    ] as const) {
      assert.deepEqual(statuses(id), [{ fill: 'red', shape: 'dot', text: key('configError') }], id);
      const logged = errorsLogged(id).map(String);
      assert.equal(logged.length, 1, `${id}: one log line`);
      assert.match(logged[0], re);
    }
    const caught = messages('caught', 3);
    inject('e', { payload: 'go' });
    inject('a', { action: 'unsubscribe' });
    inject('n', { payload: THERMOSTATS });
    const errs = (await caught).map((m) => m.error as Rec);
    for (const e of errs) {
      assertCode(e, 'TB_CONFIG');
      assert.match(e.message as string, /^TbConfigError: events/);
    }
    assert.equal(sim.ws.commandsReceived().length, before, 'nothing was subscribed');
    assert.equal(statuses('e').slice(-1)[0].shape, 'dot');
  });

  it('settings: a version 1 node without a query still lacks it; a wrong setting the node reads is a configuration problem', async () => {
    const bare = { id: 'v2', type: 'tb-subscribe', connection: 'c1', version: 2, wires: [['out']] };
    const series = { tsKeys: 'temperature' };
    await load([
      // Saved by version 1 without a query: an empty query, as version 1 read it (not the dialog's starting one).
      { id: 'v1', type: 'tb-subscribe', connection: 'c1', kind: 'entityData', version: 1, wires: [['out']] },
      // Version 2 with only its version: the dialog's defaults, the starting query among them.
      bare,
      sub('kind', 'entitydata', THERMOSTATS),
      // A unit or a window the series would read, while they are off (no series keys) and on.
      sub('off', 'entityData', THERMOSTATS, { tsWindowUnit: 'weeks', tsWindow: 0 }),
      sub('unit', 'entityData', THERMOSTATS, { ...series, tsWindow: 1, tsWindowUnit: 'fortnights' }),
      sub('window', 'entityData', THERMOSTATS, { ...series, tsWindow: 0 }),
      sub('history', 'entityData', THERMOSTATS, { history: true, historyKeys: 'temperature', historyLimit: '0' }),
    ]);
    const problems: Array<[string, RegExp]> = [
      ['v1', /^query/],
      [
        'kind',
        /^kind must be one of entityData, entityCount, alarmData, alarmCount, notifications \(got "entitydata"; did you mean "entityData"\?\)$/,
      ],
      // Version 2 saved a number and a unit: the migration makes them one duration, or keeps what it cannot read.
      ['unit', /^tsWindow must be a duration such as 30s, 15m, 2h or 7d .*, more than 0 \(got "1 fortnights"\)$/],
      ['window', /^tsWindow must be a duration .*, more than 0 \(got 0\)$/],
      ['history', /^historyLimit must be a whole number of at least 1 \(got "0"\)$/],
    ];
    for (const [id, re] of problems) {
      assert.equal(statuses(id)[0].shape, 'dot', `${id}: a red dot at deploy`);
      const logged = errorsLogged(id).map(String);
      assert.equal(logged.length, 1, `${id}: one log line`);
      assert.match(logged[0], re);
    }
    for (const id of ['v2', 'off'])
      await waitFor(() => statuses(id).some((st) => st.fill === 'green' && st.text === key('watchingEntities')));
    assert.deepEqual(errorsLogged('off'), [], 'settings the node does not read are no problem');
  });

  it('alarm status: "no alarm" / "alarm active" for one entity, "alarm on 1 of 2" / "no alarm on all 2" for several', async () => {
    const a103 = dev('Thermo A-103');
    const g103 = dev('Thermo G-103');
    await load([
      {
        id: 'as',
        type: 'tb-alarm-status',
        connection: 'c1',
        originatorType: 'DEVICE',
        originatorId: a103.id,
        typeList: 'Status Test',
        severityList: '',
        wires: [['out']],
      },
    ]);
    const c = new Collector('out');
    await statusWhere('as', (s) => s.fill === 'green' && s.text === key('noAlarm'));
    const alarm = sim.data.createAlarm({ originator: a103.id, type: 'Status Test', severity: 'MINOR' });
    await statusWhere('as', (s) => s.fill === 'yellow' && s.text === key('alarmActive'));
    inject('as', { payload: g103.id });
    await c.until((m) => m.topic === g103.id);
    await waitFor(() => statuses('as').slice(-1)[0].text === key('alarmOnSome'));
    assert.equal(statuses('as').slice(-1)[0].fill, 'yellow');
    sim.data.clearAlarm(alarm.id);
    await statusWhere('as', (s) => s.fill === 'green' && s.text === key('noAlarmOnAll'));
    inject('as', { payload: { nope: true } }); // bad input: red ring, then the next answer shows the state again
    await statusWhere('as', (s) => s.text === key('invalidInput'));
    sim.data.createAlarm({ originator: g103.id, type: 'Status Test', severity: 'MINOR' });
    await statusWhere('as', (s) => s.fill === 'yellow' && s.text === key('alarmOnSome'));
    inject('as', { payload: a103.id, action: 'unsubscribe' });
    await statusWhere('as', (s) => s.fill === 'yellow' && s.text === key('alarmActive'));
    inject('as', { payload: g103.id, action: 'unsubscribe' });
    await statusWhere('as', (s) => s.text === key('unsubscribed'));
  });

  it('alarm status: a node saved without an entity type watches a bare id as a device; a type it does not take is a configuration problem', async () => {
    const a102 = dev('Thermo A-102');
    await load([
      { id: 'old', type: 'tb-alarm-status', connection: 'c1', originatorId: a102.id, wires: [['out']] },
      { id: 'bad', type: 'tb-alarm-status', connection: 'c1', originatorType: 'device', wires: [['out']] },
    ]);
    const first = await new Collector('out').until((m) => m.topic === a102.id);
    assert.deepEqual(first.originator, { entityType: 'DEVICE', id: a102.id });
    assert.equal(statuses('bad')[0].shape, 'dot');
    assert.deepEqual(errorsLogged('bad').map(String), [
      'originatorType must be one of DEVICE, ASSET, ENTITY_VIEW, CUSTOMER, EDGE, TENANT (got "device"; did you mean ' +
        '"DEVICE"?)',
    ]);
    const caught = message('caught');
    inject('bad', { payload: a102.id });
    assertCode((await caught).error as Rec, 'TB_CONFIG');
  });

  it('a message replaces the running subscription; msg.action "unsubscribe" stops it and the socket closes', async () => {
    await load([{ ...sub('s', 'entityData', THERMOSTATS), queryType: 'msg', query: 'payload' }]);
    const c = new Collector('out');
    inject('s', {
      payload: {
        ...THERMOSTATS,
        entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo A' },
      },
    });
    const s1 = await c.until((m) => m.event === 'snapshot');
    assert.equal((s1.payload as unknown[]).length, 6);
    inject('s', {
      payload: {
        ...THERMOSTATS,
        entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo G' },
      },
    });
    const s2 = await c.until((m) => m.event === 'snapshot');
    assert.equal((s2.payload as unknown[]).length, 6);
    assert.ok(
      sim.ws.commandsReceived().some((x) => x.type === 'ENTITY_DATA_UNSUBSCRIBE'),
      'the old one was unsubscribed',
    );
    const mark = c.all.length;
    sim.data.setTelemetry(dev('Thermo A-101').id, { temperature: 11 }, nextTs());
    sim.data.setTelemetry(dev('Thermo G-101').id, { temperature: 12 }, nextTs());
    await c.until((m) => m.event === 'update' && (m.payload as Rec).name === 'Thermo G-101');
    assert.deepEqual(
      c.since(mark).map((m) => (m.payload as Rec).name),
      ['Thermo G-101'],
      'nothing from the old query',
    );
    inject('s', { action: 'unsubscribe' });
    await statusWhere('s', (s) => s.text === key('unsubscribed'));
    await waitFor(() => sim.ws.connections().open === 0);
  });

  it('close and redeploy send the unsubscribe commands and leave no socket', async () => {
    await load([sub('s1', 'entityData', THERMOSTATS), sub('s2', 'alarmCount', { statusList: ['ACTIVE'] })]);
    const c = new Collector('out');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    await c.until((m) => m.event === 'count', 8000, true);
    // redeploy without s2 ("modified nodes"): s2 closes, its subscription goes, the socket stays for s1
    const mark = sim.ws.commandsReceived().length;
    await helper.setFlows(flow(connectionNode(sim.url), sub('s1', 'entityData', THERMOSTATS)) as never, 'nodes');
    await waitFor(() =>
      sim.ws
        .commandsReceived()
        .slice(mark)
        .some((x) => x.type === 'ALARM_COUNT_UNSUBSCRIBE'),
    );
    assert.equal(sim.ws.connections().open, 1);
    await helper.unload();
    await waitFor(() =>
      sim.ws
        .commandsReceived()
        .slice(mark)
        .some((x) => x.type === 'ENTITY_DATA_UNSUBSCRIBE'),
    );
    await waitFor(() => sim.ws.connections().open === 0);
  });

  it('after the connection drops, it resubscribes and reports what changed meanwhile, exactly once', async () => {
    await load([
      sub('e', 'entityData', THERMOSTATS),
      sub('a', 'alarmData', ACTIVE_ALARMS, { wires: [['alarms']] }),
      { id: 'alarms', type: 'helper', wires: [] },
    ]);
    const c = new Collector('out');
    const ca = new Collector('alarms');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    await ca.until((m) => m.event === 'snapshot', 8000, true);
    const total = sim.ws.connections().total;
    sim.ws.pauseFrames(true); // nothing reaches the client while we change the data
    const a201 = dev('Thermo A-201');
    sim.data.setTelemetry(a201.id, { temperature: 33.3 }, nextTs());
    const alarm = sim.data.createAlarm({ originator: a201.id, type: 'While Away', severity: 'MINOR' });
    sim.ws.dropAll(); // abrupt: the held frames are lost
    sim.ws.pauseFrames(false);
    const u = await c.until((m) => m.event === 'update');
    assert.equal(u.topic, a201.id);
    assert.equal((u.payload as Rec).temperature, 33.3);
    const created = await ca.until((m) => m.event === 'created');
    assert.equal(created.topic, alarm.id);
    assert.equal(sim.ws.connections().total, total + 1, 'reconnected once');
    // a marker change proves nothing else came: no second snapshot, no repeated update
    const mark = c.all.length;
    sim.data.setTelemetry(dev('Thermo G-203').id, { temperature: 1 }, nextTs());
    await c.until((m) => m.event === 'update' && (m.payload as Rec).name === 'Thermo G-203');
    assert.deepEqual(
      c.since(mark - 1).map((m) => `${m.event}:${(m.payload as Rec).name}`),
      ['update:Thermo A-201', 'update:Thermo G-203'],
    );
    assert.deepEqual(
      ca.all.map((m) => m.event),
      ['snapshot', 'created'],
    );
  });

  it('survives a simulator restart: reconnects to the same address and reports the differences', async () => {
    await load([sub('e', 'entityData', THERMOSTATS)]);
    const c = new Collector('out');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    await sim.stop();
    sim.data.setTelemetry(dev('Thermo B-203').id, { temperature: 44 }, nextTs());
    await statusWhere('e', (s) => s.fill === 'red' && s.text === key('reconnecting'));
    await sim.start();
    const u = await c.until((m) => m.event === 'update');
    assert.equal((u.payload as Rec).name, 'Thermo B-203');
    assert.equal(c.all.filter((m) => m.event === 'snapshot').length, 1);
  });

  it('a token that expired while the socket was open is refreshed before reconnecting', async () => {
    await load([sub('e', 'entityCount', { entityFilter: THERMOSTATS.entityFilter })]);
    const c = new Collector('out');
    await c.until(() => true, 8000, true);
    sim.resetRequests();
    sim.expireAllTokens();
    const total = sim.ws.connections().total;
    const n = statuses('e').length;
    sim.ws.dropAll();
    await waitFor(() => sim.ws.connections().total >= total + 1 && sim.ws.connections().authenticated === 1);
    assert.equal(sim.countRequests('/api/auth/token'), 1, 'refreshed once');
    await waitFor(() =>
      statuses('e')
        .slice(n)
        .some((s) => s.fill === 'green'),
    );
  });

  it('a 1008 (session limit) close waits the long policy backoff; refused auth shows red and backs off', async () => {
    await load([sub('e', 'entityCount', { entityFilter: THERMOSTATS.entityFilter })]);
    const c = new Collector('out');
    await c.until(() => true, 8000, true);
    sim.ws.dropAll(1008, 'Max tenant sessions limit reached!');
    await statusWhere('e', (s) => s.fill === 'red' && s.text === key('reconnecting'));
    assert.ok((hub().info?.retryInMs ?? 0) >= 500, `waits at least the policy backoff (${hub().info?.retryInMs})`);
    await waitFor(() => sim.ws.connections().authenticated === 1, 5000);

    sim.ws.refuseAuth(true);
    const total = sim.ws.connections().total;
    sim.ws.dropAll();
    await statusWhere('e', (s) => s.fill === 'red' && s.text === key('authFailed'), 5000);
    assert.ok((hub().info?.retryInMs ?? 0) >= 500, 'long wait after a refusal');
    assert.ok(sim.ws.connections().total - total <= 2, 'no reconnect storm');
    sim.ws.refuseAuth(false);
    await waitFor(() => sim.ws.connections().authenticated === 1, 5000);
  });

  it("answers the server's pings, so a quiet session is never dropped for a missing pong", async () => {
    await load([sub('e', 'entityCount', { entityFilter: THERMOSTATS.entityFilter })]);
    const c = new Collector('out');
    await c.until(() => true, 8000, true);
    sim.ws.configure({ pingIntervalMs: 20, pongTimeoutMs: 100 });
    try {
      const total = sim.ws.connections().total;
      await waitFor(() => hub().stats.pings >= 8); // well past the pong timeout
      assert.equal(sim.ws.connections().total, total, 'no reconnect');
      assert.equal(sim.ws.connections().authenticated, 1);
    } finally {
      sim.ws.configure({ pingIntervalMs: 10000, pongTimeoutMs: 30000 });
    }
  });

  it('API key mode: authCmd.apiKey on servers that know it (4.4+), a clear refusal on older ones', async () => {
    sim.setVersion('4.4.0');
    try {
      await helper.load(
        NODES,
        flow(
          connectionNode(sim.url, { authMode: 'apiKey' }),
          sub('e', 'entityCount', { entityFilter: THERMOSTATS.entityFilter }),
        ),
        { c1: { apiKey: TENANT_API_KEY } },
      );
      const c = new Collector('out');
      assert.equal((await c.until(() => true, 8000, true)).payload, 20);
      assert.ok(sim.ws.sessionList().some((x) => x.authenticated));
      await helper.unload();
      sim.setVersion('4.3.1.3');
      await helper.load(
        NODES,
        flow(
          connectionNode(sim.url, { authMode: 'apiKey' }),
          sub('e', 'entityCount', { entityFilter: THERMOSTATS.entityFilter }),
        ),
        { c1: { apiKey: TENANT_API_KEY } },
      );
      await statusWhere('e', (s) => s.fill === 'red' && s.text === key('authFailed'));
      assert.match(hub().info?.error?.message ?? '', /need ThingsBoard 4\.4 or later/);
      assert.ok((hub().info?.retryInMs ?? 0) >= 500);
    } finally {
      sim.setVersion('4.3.1.3');
    }
  });

  it('wrong credentials: red status, no socket, no login storm', async () => {
    const total = sim.ws.connections().total;
    sim.resetRequests();
    await load([sub('e', 'entityData', THERMOSTATS)], { username: 'tenant@thingsboard.org', password: 'nope' });
    await statusWhere('e', (s) => s.fill === 'red' && s.text === key('authFailed'));
    assert.equal(sim.ws.connections().total, total);
    assert.equal(sim.countRequests('/api/auth/login'), 1);
  });

  it('a dead peer (no pong) is detected and replaced by a new connection', async () => {
    helper.settings({
      tbConnectionReconnectInitialMs: 20,
      tbConnectionReconnectMaxMs: 200,
      tbConnectionPingIntervalMs: 100,
    } as Record<string, unknown>);
    try {
      await load([sub('e', 'entityCount', { entityFilter: THERMOSTATS.entityFilter })]);
      const c = new Collector('out');
      await c.until(() => true, 8000, true);
      const total = sim.ws.connections().total;
      sim.ws.pauseFrames(true);
      await waitFor(() => sim.ws.connections().total > total, 5000);
      sim.ws.pauseFrames(false);
      await waitFor(() => sim.ws.connections().authenticated === 1, 5000);
    } finally {
      helper.settings({
        tbConnectionReconnectInitialMs: 20,
        tbConnectionReconnectMaxMs: 200,
        tbConnectionPolicyBackoffMs: 500,
        tbConnectionAuthBackoffMs: 500,
        tbConnectionRefusalCooldownMs: 60000,
      } as Record<string, unknown>);
    }
  });

  it('malformed frames are ignored; server errors reach a Catch node', async () => {
    await load([
      sub('e', 'entityData', THERMOSTATS, {
        history: true,
        historyKeys: 'humidity',
        historyRange: 2,
        historyRangeUnit: 'hours',
      }),
    ]);
    const c = new Collector('out');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    sim.ws.sendRaw('{not json');
    sim.ws.sendRaw('[1,2,3]');
    sim.ws.sendRaw('{"cmdId": 987654, "data": null}');
    sim.data.setTelemetry(dev('Thermo A-101').id, { temperature: 5 }, nextTs());
    await c.until((m) => m.event === 'update');
    assert.equal(hub().stats.malformed, 2);
    assert.ok(hub().stats.dropped >= 1, 'an unknown cmdId is dropped, not misrouted');

    await helper.unload();
    sim.ws.failHistoryFetch(1);
    await load([
      sub('e', 'entityData', THERMOSTATS, {
        history: true,
        historyKeys: 'humidity',
        historyRange: 2,
        historyRangeUnit: 'hours',
      }),
    ]);
    const caught: Msg = await message('caught');
    const error = caught.error as Rec;
    assertCode(error, 'TB_SUBSCRIPTION');
    assert.match(error.message as string, /errorCode 1\): Failed to fetch historical data!/);
  });

  it('key filters at the edges: numeric text goes out as the number; CURRENT_DEVICE accepted (and skipped) live; dynamic values resolved live', async () => {
    await load([{ ...sub('s', 'entityData', THERMOSTATS), queryType: 'msg', query: 'payload' }]);
    const c = new Collector('out');
    const hot = (value: Rec): Rec => ({
      ...THERMOSTATS,
      keyFilters: [
        {
          key: { type: 'TIME_SERIES', key: 'temperature' },
          predicate: { type: 'NUMERIC', operation: 'GREATER', value },
        },
      ],
    });
    const names = (m: Msg) => (m.payload as Rec[]).map((i) => i.name);
    /** What REST find answers for a plain number (the sim's clock decides the latest temperatures). */
    const restNames = async (limit: number): Promise<unknown[]> => {
      const res = await fetch(`${sim.url}/api/entitiesQuery/find`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Authorization': `Bearer ${sim.tokensFor('tenant@thingsboard.org').token}`,
        },
        body: JSON.stringify(hot({ defaultValue: limit })),
      });
      const page = (await res.json()) as { data: Array<{ latest: { ENTITY_FIELD: { name: { value: string } } } }> };
      return page.data.map((d) => d.latest.ENTITY_FIELD.name.value);
    };
    const above29 = await restNames(29);
    const above25 = await restNames(25);
    assert.ok(above29.length > 0 && above25.length > above29.length);
    const sentValue = () => {
      const last = sim.ws
        .commandsReceived()
        .filter((e) => e.type === 'ENTITY_DATA')
        .at(-1)!.cmd as { query: { keyFilters: Array<{ predicate: { value: unknown } }> } };
      return last.query.keyFilters[0].predicate.value;
    };
    // " 2.9e1 " is what the server's Jackson reads as 29.0: it goes out as that number
    inject('s', { payload: hot({ defaultValue: ' 2.9e1 ' }) });
    assert.deepEqual(names(await c.until((m) => m.event === 'snapshot')), above29);
    assert.deepEqual(sentValue(), { defaultValue: 29 });
    // CURRENT_DEVICE is accepted live, as the server does: the subscription skips it and the defaultValue (29)
    // applies, not the tenant-like 25 nor an error (a REST node refuses it: see the REST tests)
    inject('s', {
      payload: hot({
        defaultValue: 29,
        dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'tempThreshold' },
      }),
    });
    assert.deepEqual(names(await c.until((m) => m.event === 'snapshot')), above29);
    assert.deepEqual(sentValue(), {
      defaultValue: 29,
      dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'tempThreshold' },
    });
    // with a userValue the userValue applies
    inject('s', {
      payload: hot({
        defaultValue: 0,
        userValue: 29,
        dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'limit' },
      }),
    });
    assert.deepEqual(names(await c.until((m) => m.event === 'snapshot')), above29);
    // the tenant's tempThreshold (25) is read by the subscription, not the default 29
    inject('s', {
      payload: hot({
        defaultValue: 29,
        dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'tempThreshold' },
      }),
    });
    assert.deepEqual(names(await c.until((m) => m.event === 'snapshot')), above25);
  });

  it('bad input: a bad query from a message is refused before anything is sent', async () => {
    await load([{ ...sub('s', 'alarmData', ACTIVE_ALARMS), queryType: 'msg', query: 'payload' }]);
    const before = sim.ws.commandsReceived().length;
    const caught = message('caught');
    inject('s', {
      payload: {
        entityFilter: { type: 'entityType', entityType: 'DEVICE' },
        pageLink: { pageSize: 5, severityList: ['HUGE'] },
      },
    });
    const error = (await caught).error as Rec;
    assertCode(error, 'TB_INVALID_INPUT');
    assert.match(error.message as string, /msg\.payload\.pageLink\.severityList\[0\] must be one of CRITICAL/);
    assert.equal(sim.ws.commandsReceived().length, before);
    const caught2 = message('caught');
    inject('s', { action: 'pause' });
    assert.match(((await caught2).error as Rec).message as string, /msg\.action must be "subscribe" or "unsubscribe"/);
  });
});

/** Polls a condition on the event loop (no fixed sleeps); rejects after `ms`. */
