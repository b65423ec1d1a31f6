import assert from 'node:assert/strict';
import {
  AlarmDataSubscription,
  AlarmStatusSubscription,
  classifyAlarm,
  CountSubscription,
  EntityDataSubscription,
  LiveEvent,
  LiveSink,
  withLiveWindow,
} from '../../src/live/subscriptions';
import { flattenEntity } from '../../src/protocol/format';
import type { AlarmData, EntityData } from '../../src/protocol/types';
import { prepareAlarmDataQuery, prepareEntityDataQuery } from '../../src/protocol/validate';

class Sink implements LiveSink {
  events: LiveEvent[] = [];
  event(ev: LiveEvent): void {
    this.events.push(ev);
  }
  state(): void {}
  error(): void {}
  take(): LiveEvent[] {
    const e = this.events;
    this.events = [];
    return e;
  }
}

const dev = (id: string, temp: string, ts = 1000, name = `D${id}`): EntityData => ({
  entityId: { entityType: 'DEVICE', id },
  latest: { ENTITY_FIELD: { name: { ts: 5, value: name } }, TIME_SERIES: { temperature: { ts, value: temp } } },
  timeseries: {},
  aggLatest: {},
});
const page = <T>(data: T[]) => ({ data, totalPages: 1, totalElements: data.length, hasNext: false });
const upd = (id: string, key: string, value: string, ts: number): EntityData => ({
  entityId: { entityType: 'DEVICE', id },
  latest: { TIME_SERIES: { [key]: { ts, value } } },
  timeseries: null as unknown as Record<string, never>,
  aggLatest: null as unknown as Record<string, never>,
});

const query = prepareEntityDataQuery({
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
  pageLink: { page: 0, pageSize: 10 },
});

describe('live subscription kinds (state and events, no socket)', () => {
  it('entity data: one command with the query and a latestCmd for its latest values', () => {
    const cmd = new EntityDataSubscription(new Sink(), query, 'flat').command();
    assert.equal(cmd.type, 'ENTITY_DATA');
    assert.deepEqual((cmd.latestCmd as { keys: unknown }).keys, [{ type: 'TIME_SERIES', key: 'temperature' }]);
    assert.ok(Array.isArray((cmd.query as { latestValues: unknown }).latestValues));
  });

  it('entity data: snapshot first; updates arriving before it are applied after it', () => {
    const sink = new Sink();
    const s = new EntityDataSubscription(sink, query, 'flat');
    s.onMessage({ cmdId: 1, update: [upd('a', 'temperature', '21.5', 2000)] });
    assert.equal(sink.events.length, 0);
    s.onMessage({ cmdId: 1, data: page([dev('a', '20'), dev('b', '30')]) });
    const [snap, u] = sink.take();
    assert.equal(snap.event, 'snapshot');
    assert.equal((snap as { items: unknown[] }).items.length, 2);
    assert.equal(u.event, 'update');
    assert.deepEqual((u as { changed: string[] }).changed, ['temperature']);
    assert.equal((u as { item: Record<string, unknown> }).item.temperature, 21.5);
    assert.equal((u as { item: Record<string, unknown> }).item.name, 'Da', 'full state: the entity field is kept');
  });

  it('entity data: duplicates, older values and "23" vs "23.0" make no event; a deletion does', () => {
    const sink = new Sink();
    const s = new EntityDataSubscription(sink, query, 'flat');
    s.onMessage({ cmdId: 1, data: page([dev('a', '23', 1000)]) });
    sink.take();
    s.onMessage({ cmdId: 1, update: [upd('a', 'temperature', '23.0', 1000)] });
    s.onMessage({ cmdId: 1, update: [upd('a', 'temperature', '19', 500)] });
    s.onMessage({ cmdId: 1, update: [upd('zzz', 'temperature', '1', 5000)] });
    assert.equal(sink.take().length, 0);
    s.onMessage({ cmdId: 1, update: [upd('a', 'temperature', '', 0)] });
    const [del] = sink.take();
    assert.equal((del as { item: Record<string, unknown> }).item.temperature, null);
  });

  it('entity data (flat): every update is the flat form of the merged entity, whatever group a key changes in', () => {
    // The raw format merges copy on write and sends the whole entity: its flat form is what the flat format's row,
    // changed in place (a time-series value that is there set directly, the rest from all the groups), must equal.
    const q = prepareEntityDataQuery({
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
      latestValues: [
        { type: 'TIME_SERIES', key: 'temperature' },
        { type: 'SERVER_ATTRIBUTE', key: 'mode' },
      ],
      pageLink: { page: 0, pageSize: 10 },
    });
    const first: EntityData = {
      entityId: { entityType: 'DEVICE', id: 'a' },
      latest: {
        ENTITY_FIELD: { name: { ts: 5, value: 'Da' } },
        SERVER_ATTRIBUTE: { mode: { ts: 10, value: 'eco' }, level: { ts: 10, value: '3' } },
        TIME_SERIES: { temperature: { ts: 10, value: '20' }, mode: { ts: 0, value: '' } },
      },
      timeseries: {},
      aggLatest: {},
    };
    const at = (latest: EntityData['latest']): EntityData => ({
      entityId: { entityType: 'DEVICE', id: 'a' },
      latest,
      timeseries: {},
      aggLatest: {},
    });
    const updates: EntityData[] = [
      at({ TIME_SERIES: { temperature: { ts: 20, value: '21.5' } } }),
      at({ TIME_SERIES: { mode: { ts: 21, value: 'manual' } } }), // a time series over the attribute
      at({ SERVER_ATTRIBUTE: { mode: { ts: 22, value: 'boost' } } }), // the attribute changes, the time series still wins
      at({ TIME_SERIES: { mode: { ts: 0, value: '' } } }), // deleted: the attribute shows again
      at({
        TIME_SERIES: {
          name: { ts: 23, value: 'not the name' },
          id: { ts: 23, value: 'x' },
          ts: { ts: 23, value: '1' },
        },
      }),
      at({
        SERVER_ATTRIBUTE: { level: { ts: 24, value: '4' } },
        TIME_SERIES: { level: { ts: 24, value: '5' }, fresh: { ts: 24, value: 'true' } },
      }),
      at({ TIME_SERIES: { temperature: { ts: 25, value: '1.7957485439661233E12' }, fresh: { ts: 0, value: '' } } }),
    ];
    const flat = new Sink();
    const raw = new Sink();
    const sf = new EntityDataSubscription(flat, q, 'flat');
    const sr = new EntityDataSubscription(raw, q, 'raw');
    for (const s of [sf, sr]) s.onMessage({ cmdId: 1, data: page([structuredClone(first)]) });
    flat.take();
    raw.take();
    for (const [i, u] of updates.entries()) {
      sf.onMessage({ cmdId: 1, update: [structuredClone(u)] });
      sr.onMessage({ cmdId: 1, update: [structuredClone(u)] });
      const [f] = flat.take() as Array<{ item: Record<string, unknown>; changed: string[] }>;
      const [r] = raw.take() as Array<{ item: EntityData; changed: string[] }>;
      assert.ok(f && r, `update ${i}: an event from both`);
      assert.deepEqual(f.changed, r.changed, `update ${i}: changed`);
      assert.deepEqual(f.item, flattenEntity(r.item), `update ${i}: the row`);
    }
    const last = flattenEntity((sr as unknown as { known: Map<string, { raw: EntityData }> }).known.get('a')!.raw);
    assert.equal(last.mode, 'boost');
    assert.equal(last.name, 'Da');
    assert.equal(last.level, 5);
    assert.equal(last.fresh, null, 'deleted, and no attribute of that name');
    assert.equal(last.temperature, 1795748543966.1233);
  });

  it('entity data: emitted items are never changed afterwards (copy on write)', () => {
    const sink = new Sink();
    const s = new EntityDataSubscription(sink, query, 'raw');
    s.onMessage({ cmdId: 1, data: page([dev('a', '20', 1000)]) });
    const snapItem = (sink.take()[0] as { items: EntityData[] }).items[0];
    s.onMessage({ cmdId: 1, update: [upd('a', 'temperature', '25', 2000)] });
    assert.equal(snapItem.latest!.TIME_SERIES!.temperature.value, '20');
    const u = sink.take()[0] as { item: EntityData };
    assert.equal(u.item.latest!.TIME_SERIES!.temperature.value, '25');
  });

  it('entity data: a later page (reconnect or dynamic) yields only the differences', () => {
    const sink = new Sink();
    const s = new EntityDataSubscription(sink, query, 'flat');
    s.onMessage({ cmdId: 1, data: page([dev('a', '20'), dev('b', '30')]) });
    sink.take();
    // b is gone, c is new, a changed; entity-field timestamps differ but values do not
    s.onMessage({
      cmdId: 7,
      data: page([
        {
          ...dev('a', '22', 3000),
          latest: { ...dev('a', '22', 3000).latest, ENTITY_FIELD: { name: { ts: 99, value: 'Da' } } },
        },
        dev('c', '40'),
      ]),
    });
    const evs = sink.take().map((e) => `${e.event}:${(e as { id?: string }).id}`);
    assert.deepEqual(evs.sort(), ['added:c', 'removed:b', 'update:a']);
    s.onMessage({ cmdId: 7, data: page([dev('a', '22', 3000), dev('c', '40')]) });
    assert.equal(sink.take().length, 0, 'nothing unchanged is re-emitted');
  });

  const alarm = (id: string, over: Partial<AlarmData> = {}): AlarmData =>
    ({
      id: { entityType: 'ALARM', id },
      type: 'High Temperature',
      severity: 'CRITICAL',
      status: 'ACTIVE_UNACK',
      acknowledged: false,
      cleared: false,
      createdTime: 1,
      originator: { entityType: 'DEVICE', id: 'd1' },
      entityId: { entityType: 'DEVICE', id: 'd1' },
      latest: {},
      ...over,
    }) as AlarmData;

  it('alarm data: a query without a window is sent with one reaching back to the epoch (timeWindow = now), rebuilt per command', () => {
    type Cmd = { query: { pageLink: { timeWindow?: number; startTs?: number; endTs?: number } } };
    const devices = { type: 'entityType', entityType: 'DEVICE' };
    const q = prepareAlarmDataQuery({ entityFilter: devices, pageLink: { pageSize: 10, statusList: ['ACTIVE'] } });
    let now = 1_790_000_000_000;
    const s = new AlarmDataSubscription(
      new Sink(),
      q,
      'flat',
      async () => null,
      () => now,
    );
    const first = s.command() as unknown as Cmd;
    assert.equal(first.query.pageLink.timeWindow, 1_790_000_000_000);
    assert.equal(first.query.pageLink.startTs ?? 0, 0, 'no startTs: the server takes [now - timeWindow, now]');
    assert.equal(first.query.pageLink.endTs ?? 0, 0);
    assert.equal(q.pageLink.timeWindow ?? 0, 0, 'the query itself is not changed');
    now += 3_600_000; // a reconnect an hour later sends the window anew
    assert.equal((s.command() as unknown as Cmd).query.pageLink.timeWindow, 1_790_003_600_000);
    // a query with its own window, start or end is sent as written
    for (const own of [
      { timeWindow: 5000 },
      { startTs: 1_700_000_000_000 },
      { endTs: 1_700_000_000_000 },
      { startTs: 1_700_000_000_000, timeWindow: 86_400_000 },
    ]) {
      const qo = prepareAlarmDataQuery({ entityFilter: devices, pageLink: { pageSize: 10, ...own } });
      const cmd = new AlarmDataSubscription(
        new Sink(),
        qo,
        'flat',
        async () => null,
        () => now,
      ).command() as unknown as Cmd;
      assert.deepEqual(cmd.query.pageLink, qo.pageLink, JSON.stringify(own));
    }
    // the window is a whole number of ms (a Java long on the server) and never 0
    assert.equal(withLiveWindow(q, 1_790_000_000_000.7).pageLink.timeWindow, 1_790_000_000_000);
    assert.equal(withLiveWindow(q, 0).pageLink.timeWindow, 1);
  });

  it('alarm data: created, acknowledged, cleared and updated events', () => {
    const sink = new Sink();
    const q = prepareAlarmDataQuery({
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      pageLink: { pageSize: 10 },
    });
    const s = new AlarmDataSubscription(sink, q, 'flat', async () => null);
    s.onMessage({ cmdId: 1, data: page([alarm('x')]) });
    assert.equal(sink.take()[0].event, 'snapshot');
    s.onMessage({ cmdId: 1, update: [alarm('y')] });
    s.onMessage({ cmdId: 1, update: [alarm('x', { acknowledged: true, status: 'ACTIVE_ACK' })] });
    s.onMessage({ cmdId: 1, update: [alarm('x', { acknowledged: true, cleared: true, status: 'CLEARED_ACK' })] });
    s.onMessage({ cmdId: 1, update: [alarm('y', { severity: 'MAJOR' })] });
    s.onMessage({ cmdId: 1, update: [alarm('y', { severity: 'MAJOR' })] });
    assert.deepEqual(
      sink.take().map((e) => `${e.event}:${(e as { id: string }).id}`),
      ['created:y', 'acknowledged:x', 'cleared:x', 'updated:y'],
    );
  });

  it('alarm data: an alarm that leaves the page is looked up to tell cleared from removed', async () => {
    const sink = new Sink();
    const q = prepareAlarmDataQuery({
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      pageLink: { pageSize: 10, statusList: ['ACTIVE'] },
    });
    const fates: Record<string, AlarmData | null> = {
      x: alarm('x', { cleared: true, status: 'CLEARED_UNACK' }),
      y: null,
    };
    const s = new AlarmDataSubscription(sink, q, 'flat', async (id) => fates[id]);
    s.onMessage({ cmdId: 1, data: page([alarm('x'), alarm('y'), alarm('z')]) });
    sink.take();
    s.onMessage({ cmdId: 1, data: page([alarm('z')]) });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      sink
        .take()
        .map((e) => `${e.event}:${(e as { id: string }).id}`)
        .sort(),
      ['cleared:x', 'removed:y'],
    );
  });

  it('classifies alarm changes', () => {
    assert.equal(classifyAlarm(alarm('a'), alarm('a')), undefined);
    assert.equal(classifyAlarm(alarm('a'), alarm('a', { details: { x: 1 } })), 'updated');
    assert.equal(classifyAlarm(alarm('a', { details: { x: 1 } }), alarm('a', { details: { x: 1 } })), undefined);
  });

  it('counts and alarm status emit only on change; alarm status sends null for "any"', () => {
    const sink = new Sink();
    const c = new CountSubscription(sink, 'ENTITY_COUNT', {
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
    });
    for (const n of [5, 5, 6, 6, 5]) c.onMessage({ cmdId: 1, count: n });
    assert.deepEqual(
      sink.take().map((e) => (e as { count: number }).count),
      [5, 6, 5],
    );
    const st = new AlarmStatusSubscription(sink, { entityType: 'DEVICE', id: 'd1' }, [], ['CRITICAL']);
    assert.deepEqual(st.command(), {
      type: 'ALARM_STATUS',
      originatorId: { entityType: 'DEVICE', id: 'd1' },
      typeList: null,
      severityList: ['CRITICAL'],
    });
    for (const a of [false, false, true, true, false]) st.onMessage({ cmdId: 2, active: a });
    assert.deepEqual(
      sink.take().map((e) => (e as { active: boolean }).active),
      [false, true, false],
    );
  });
});
