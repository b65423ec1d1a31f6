import assert from 'node:assert/strict';
import { once } from 'node:events';
import { BASE_TIME, HOUR } from '../../sim/index';
import { login } from '../../sim/testkit';
import { NPE_ALARM_COUNT_QUERY } from '../../sim/ws/subs/counts';
import { tsKey, type Msg, type TestWs, type WsCtx } from '../../sim/ws-client';
import { useWsSetup } from '../support/simulator';

const DEVICES = { type: 'entityType', entityType: 'DEVICE' };
const DAY = 24 * HOUR;

function alarmQuery(
  pageLink: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    entityFilter: DEVICES,
    pageLink: {
      page: 0,
      pageSize: 50,
      timeWindow: 7 * DAY,
      statusList: ['ACTIVE'],
      severityList: [],
      typeList: [],
      searchPropagatedAlarms: false,
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
      ...pageLink,
    },
    alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
    entityFields: [],
    latestValues: [],
    keyFilters: [],
    ...extra,
  };
}

/** Waits for the next timer-driven re-run of one subscription. */
async function refreshOf(c: WsCtx, kind: string, cmdId: number): Promise<{ changed: boolean }> {
  for (;;) {
    const [ev] = (await once(c.sim.ws.events, 'refresh')) as [{ kind: string; cmdId: number; changed: boolean }];
    if (ev.kind === kind && ev.cmdId === cmdId) return ev;
  }
}

describe('simulator ws: alarms and counts', function () {
  const c = useWsSetup({ wsDynamicRefreshMs: 15 }, { perTest: true });

  const dev = (name: string): { entityType: string; id: string } => ({
    entityType: 'DEVICE',
    id: c.sim.data.mustFindByName('DEVICE', name).id,
  });
  const ids = (page: Msg): string[] => page.data.map((a: Msg) => a.id.id);

  describe('ALARM_DATA', () => {
    async function alarmTable(query = alarmQuery()): Promise<{ ws: TestWs; first: Msg }> {
      const ws = await c.connect([{ type: 'ALARM_DATA', cmdId: 5, query }]);
      return { ws, first: await ws.forCmd(5) };
    }

    it('first data = the REST alarm page, with allowedEntities and totalEntities', async () => {
      const { first } = await alarmTable();
      // Jackson writes the @JsonCreator's properties first (sim/ws/messages.ts)
      assert.deepEqual(Object.keys(first), [
        'cmdId',
        'data',
        'update',
        'errorCode',
        'errorMsg',
        'allowedEntities',
        'totalEntities',
        'cmdUpdateType',
      ]);
      assert.equal(first.allowedEntities, 10000);
      assert.equal(first.totalEntities, 28);
      const tenant = await login(c.url, 'tenant@thingsboard.org', 'tenant');
      assert.deepEqual(first.data, await tenant.ok('/api/alarmsQuery/find', alarmQuery()));
      assert.equal(first.data.data.length, 9);
    });

    it('an on-page alarm that still matches comes as update:[AlarmData]; one that stops matching re-fetches', async () => {
      const { ws, first } = await alarmTable();
      const target = first.data.data.find((a: Msg) => a.originatorName === 'Thermo A-101');
      c.sim.data.ackAlarm(target.id.id);
      const u = await ws.forCmd(5);
      assert.equal(u.data, null);
      assert.equal(u.update.length, 1);
      assert.equal(u.update[0].id.id, target.id.id);
      assert.equal(u.update[0].status, 'ACTIVE_ACK');
      assert.deepEqual(u.update[0].entityId, target.entityId);
      assert.deepEqual(u.update[0].latest, target.latest);
      assert.equal(u.totalEntities, 28);
      c.sim.data.clearAlarm(target.id.id);
      const again = await ws.forCmd(5);
      assert.equal(again.update, null);
      assert.equal(again.data.data.length, 8);
      assert.ok(!ids(again.data).includes(target.id.id));
    });

    it('a new matching alarm while on page 0 re-fetches; deletion of an on-page alarm re-fetches', async () => {
      const { ws } = await alarmTable();
      const a = c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'New', severity: 'MAJOR' });
      const page = await ws.forCmd(5);
      assert.equal(page.data.data[0].id.id, a.id);
      c.sim.data.createAlarm({
        originator: dev('Thermo A-203'),
        type: 'Old',
        severity: 'MAJOR',
        createdTime: BASE_TIME - 30 * DAY,
      });
      c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'Cleared', cleared: true });
      assert.deepEqual(await ws.probe(), [], 'outside the time window / not ACTIVE: ignored');
      c.sim.data.deleteAlarm(a.id);
      const after = await ws.forCmd(5);
      assert.ok(!ids(after.data).includes(a.id));
    });

    it('timeWindow 0: new alarms never appear; on-page changes re-fetch, 10 times at most', async () => {
      const { ws, first } = await alarmTable(alarmQuery({ timeWindow: 0 }));
      assert.equal(first.data.data.length, 9);
      c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'New', severity: 'MAJOR' });
      assert.deepEqual(await ws.probe(), []);
      const target = first.data.data[0].id.id;
      for (let i = 0; i < 10; i++) {
        c.sim.data.updateAlarm(target, { details: { n: i } });
        const m = await ws.forCmd(5);
        assert.equal(m.update, null, 'a full data re-fetch, not an update');
        assert.ok(m.data);
      }
      c.sim.data.updateAlarm(target, { details: { n: 10 } });
      assert.deepEqual(await ws.probe(), [], 'the 11th change: nothing (the counter is never reset)');
    });

    it('timeWindow = now (a window back to the epoch): every alarm in the first page, new ones stream, the timer prunes nothing', async () => {
      // What tb-subscribe sends for a query without a window, months after the stored alarms (BASE_TIME).
      c.clock.now = BASE_TIME + 200 * DAY;
      const tenant = await login(c.url, 'tenant@thingsboard.org', 'tenant');
      const noWindow = await tenant.ok('/api/alarmsQuery/find', alarmQuery({ timeWindow: 0 }));
      assert.equal(noWindow.data.length, 9);
      const ws = await c.connect([
        { type: 'ALARM_DATA', cmdId: 5, query: alarmQuery({ timeWindow: c.clock.now }) },
        { type: 'ALARM_DATA', cmdId: 6, query: alarmQuery({ timeWindow: DAY }) },
        // the client's clock an hour ahead of the server's (now - timeWindow < 0: no lower bound) or behind it
        { type: 'ALARM_DATA', cmdId: 7, query: alarmQuery({ timeWindow: c.clock.now + HOUR }) },
        { type: 'ALARM_DATA', cmdId: 8, query: alarmQuery({ timeWindow: c.clock.now - HOUR }) },
      ]);
      const first = await ws.forCmd(5);
      assert.deepEqual(first.data, noWindow, 'the same page as a query without any window');
      assert.equal((await ws.forCmd(6)).data.data.length, 0, 'the old 24 h default: every alarm is months old');
      assert.deepEqual((await ws.forCmd(7)).data, noWindow);
      assert.deepEqual((await ws.forCmd(8)).data, noWindow);
      ws.cmds({ type: 'ALARM_DATA_UNSUBSCRIBE', cmdId: 7 }, { type: 'ALARM_DATA_UNSUBSCRIBE', cmdId: 8 });
      // a new alarm passes the live filter (createdTime >= now - timeWindow, near the epoch) and is re-fetched
      const a = c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'New', severity: 'MAJOR' });
      const page = await ws.forCmd(5);
      assert.equal(page.data.data[0].id.id, a.id);
      assert.equal(page.data.data.length, 10);
      c.sim.data.ackAlarm(a.id);
      const u = await ws.forCmd(5);
      assert.equal(u.update[0].id.id, a.id);
      assert.equal(u.update[0].status, 'ACTIVE_ACK');
      c.sim.data.clearAlarm(a.id);
      assert.ok(!ids((await ws.forCmd(5)).data).includes(a.id), 'cleared: re-fetched without it');
      // even an alarm raised with an old createdTime passes
      const old = c.sim.data.createAlarm({
        originator: dev('Thermo A-203'),
        type: 'Old',
        severity: 'MAJOR',
        createdTime: BASE_TIME - 30 * DAY,
      });
      assert.ok(ids((await ws.forCmd(5)).data).includes(old.id));
      // the refresh timer runs (timeWindow > 0) and, a month later, prunes nothing: nothing on the page is older than
      // now - timeWindow; the 24 h subscription's timer re-fetches to drop its expired alarm
      const b = c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'Stays', severity: 'MINOR' });
      assert.ok(ids((await ws.forCmd(5)).data).includes(b.id));
      assert.deepEqual(ids((await ws.forCmd(6)).data), [b.id]);
      assert.deepEqual(await ws.probe(), []);
      const [r5, r6] = [refreshOf(c, 'ALARM_DATA', 5), refreshOf(c, 'ALARM_DATA', 6)];
      c.clock.now += 30 * DAY;
      assert.equal((await r5).changed, false);
      assert.equal((await r6).changed, true);
      const after = await ws.probe();
      assert.deepEqual(
        after.filter((m) => m.cmdId === 5),
        [],
        'no re-fetch of the epoch window',
      );
      assert.deepEqual(
        after.filter((m) => m.cmdId === 6).map((m) => m.data.data.length),
        [0],
        'the 24 h window lost it',
      );
    });

    it('latest values of an entity are merged into all its alarms on the page (Java formatting)', async () => {
      const { ws, first } = await alarmTable(alarmQuery({}, { latestValues: [tsKey('temperature')] }));
      const onA101 = first.data.data.filter((a: Msg) => a.entityId.id === dev('Thermo A-101').id);
      assert.equal(onA101[0].latest.TIME_SERIES.temperature.value, '21.5');
      c.sim.data.setTelemetry(dev('Thermo A-101').id, { temperature: 27 }, BASE_TIME + 60_000);
      const u = await ws.forCmd(5);
      assert.deepEqual(
        u.update.map((a: Msg) => a.id.id),
        onA101.map((a: Msg) => a.id.id),
      );
      assert.deepEqual(u.update[0].latest.TIME_SERIES.temperature, { ts: BASE_TIME + 60_000, value: '27' });
      c.sim.data.setTelemetry(dev('Thermo A-203').id, { temperature: 27 }, BASE_TIME + 60_000);
      assert.deepEqual(await ws.probe(), [], 'no alarm of that entity on the page');
    });

    it('errors: missing alarmFields (NPE), missing query; no entity matched', async () => {
      const ws = await c.connect([
        { type: 'ALARM_DATA', cmdId: 5, query: { ...alarmQuery(), alarmFields: undefined } },
        { type: 'ALARM_DATA', cmdId: 6 },
        {
          type: 'ALARM_DATA',
          cmdId: 8,
          query: alarmQuery(
            {},
            { entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'zzz' } },
          ),
        },
      ]);
      const npe = await ws.next();
      assert.equal(npe.subscriptionId, 5);
      assert.equal(npe.errorCode, 1);
      assert.match(npe.errorMsg, /^Cannot invoke "java.util.List.iterator\(\)".*getAlarmFields\(\)" is null$/);
      assert.deepEqual(await ws.next(), {
        subscriptionId: 6,
        errorCode: 2,
        errorMsg: 'Query is empty!',
        data: null,
        latestValues: {},
      });
      assert.deepEqual(await ws.next(), {
        cmdId: 8,
        errorCode: 0,
        errorMsg: null,
        data: { data: [], totalPages: 0, totalElements: 0, hasNext: false },
        update: null,
        allowedEntities: 0,
        totalEntities: 0,
        cmdUpdateType: 'ALARM_DATA',
      });
    });
  });

  describe('ALARM_COUNT', () => {
    it('immediate count; recount on alarm events of the matched entities, sent only on change; duplicate cmdId ignored', async () => {
      const query = {
        entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Thermo A' },
        statusList: ['ACTIVE'],
      };
      const ws = await c.connect([{ type: 'ALARM_COUNT', cmdId: 3, query }]);
      assert.deepEqual(await ws.forCmd(3), {
        cmdId: 3,
        errorCode: 0,
        errorMsg: null,
        count: 3,
        cmdUpdateType: 'ALARM_COUNT_DATA',
      });
      const a = c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'X' });
      assert.equal((await ws.forCmd(3)).count, 4);
      c.sim.data.ackAlarm(a.id);
      c.sim.data.createAlarm({ originator: dev('Thermo B-203'), type: 'X' });
      ws.cmds({ type: 'ALARM_COUNT', cmdId: 3, query: {} });
      assert.deepEqual(await ws.probe(), [], 'no change, other entity, duplicate cmdId');
      c.sim.data.clearAlarm(a.id);
      assert.equal((await ws.forCmd(3)).count, 3);
    });

    it('an entityFilter matching nothing: 0 and no further updates', async () => {
      const ws = await c.connect([
        {
          type: 'ALARM_COUNT',
          cmdId: 3,
          query: { entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'zzz' } },
        },
      ]);
      assert.equal((await ws.forCmd(3)).count, 0);
      const other = await c.connect([{ type: 'ALARM_COUNT', cmdId: 4, query: {} }]);
      await other.forCmd(4);
      c.sim.data.addEntity({ entityType: 'DEVICE', name: 'zzz-1' });
      c.sim.data.createAlarm({ originator: c.sim.data.mustFindByName('DEVICE', 'zzz-1'), type: 'X' });
      assert.equal((await other.forCmd(4)).count, 17, 'the refresh ran');
      assert.deepEqual(await ws.probe(), [], 'the entity list was resolved once: still nothing');
    });

    it('without entityFilter changes appear only at the refresh interval', async () => {
      const ws = await c.connect([{ type: 'ALARM_COUNT', cmdId: 3, query: {} }]);
      assert.equal((await ws.forCmd(3)).count, 16);
      c.sim.ws.configure({ dynamicRefreshMs: 60_000 }); // existing timers keep 15 ms
      const refreshed = refreshOf(c, 'ALARM_COUNT', 3);
      c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'X' });
      assert.equal(ws.messages.length, 1, 'not pushed by the event');
      assert.equal((await refreshed).changed, true);
      assert.equal((await ws.forCmd(3)).count, 17);
    });

    it('a null query is an NPE error (ALARM_COUNT has no "Query is empty!" check)', async () => {
      const ws = await c.connect([{ type: 'ALARM_COUNT', cmdId: 3 }]);
      assert.deepEqual(await ws.next(), {
        subscriptionId: 3,
        errorCode: 1,
        errorMsg: NPE_ALARM_COUNT_QUERY,
        data: null,
        latestValues: {},
      });
    });
  });

  describe('ENTITY_COUNT', () => {
    it('immediate COUNT_DATA; entity creation is seen at the next refresh only; sent only on change', async () => {
      const ws = await c.connect([
        { type: 'ENTITY_COUNT', cmdId: 2, query: { entityFilter: DEVICES, keyFilters: [] } },
      ]);
      const first = await ws.forCmd(2);
      assert.deepEqual(first, { cmdId: 2, errorCode: 0, errorMsg: null, count: 28, cmdUpdateType: 'COUNT_DATA' });
      assert.deepEqual(
        Object.keys(first),
        ['cmdId', 'count', 'errorCode', 'errorMsg', 'cmdUpdateType'],
        "Jackson's order: the creator's properties first",
      );
      assert.equal((await refreshOf(c, 'ENTITY_COUNT', 2)).changed, false);
      const refreshed = refreshOf(c, 'ENTITY_COUNT', 2);
      c.sim.data.addEntity({ entityType: 'DEVICE', name: 'New device' });
      assert.equal(ws.messages.length, 1);
      assert.equal((await refreshed).changed, true);
      assert.equal((await ws.forCmd(2)).count, 29);
      assert.equal((await refreshOf(c, 'ENTITY_COUNT', 2)).changed, false);
      ws.cmds({ type: 'ENTITY_COUNT', cmdId: 2, query: { entityFilter: { type: 'entityType', entityType: 'ASSET' } } });
      assert.deepEqual(await ws.probe(), [], 'duplicate cmdId: ignored');
      ws.cmds({ type: 'ENTITY_COUNT', cmdId: 2 }, { type: 'ENTITY_COUNT_UNSUBSCRIBE', cmdId: 2 });
      assert.deepEqual(await ws.next(), {
        subscriptionId: 2,
        errorCode: 2,
        errorMsg: 'Query is empty!',
        data: null,
        latestValues: {},
      });
    });
  });

  describe('ALARM_STATUS', () => {
    it('active at once; then only transitions (severity filter, ack does not matter, clear)', async () => {
      const cmd = {
        type: 'ALARM_STATUS',
        cmdId: 4,
        originatorId: dev('Thermo A-203'),
        typeList: null,
        severityList: ['CRITICAL'],
      };
      const ws = await c.connect([cmd, { ...cmd, cmdId: 9, originatorId: dev('Thermo A-101') }]);
      assert.deepEqual(await ws.forCmd(4), {
        cmdId: 4,
        errorCode: 0,
        errorMsg: null,
        active: false,
        cmdUpdateType: 'ALARM_STATUS',
      });
      assert.equal((await ws.forCmd(9)).active, true);
      c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'Minor', severity: 'MINOR' });
      assert.deepEqual(await ws.probe(), []);
      const crit = c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'Hot', severity: 'CRITICAL' });
      assert.equal((await ws.forCmd(4)).active, true);
      c.sim.data.ackAlarm(crit.id);
      assert.deepEqual(await ws.probe(), []);
      c.sim.data.updateAlarm(crit.id, { severity: 'MAJOR' });
      assert.equal((await ws.forCmd(4)).active, false);
      c.sim.data.updateAlarm(crit.id, { severity: 'CRITICAL' });
      assert.equal((await ws.forCmd(4)).active, true);
      c.sim.data.clearAlarm(crit.id);
      assert.equal((await ws.forCmd(4)).active, false);
    });

    it('an empty typeList matches nothing (send null for "any")', async () => {
      const ws = await c.connect([
        { type: 'ALARM_STATUS', cmdId: 4, originatorId: dev('Thermo A-101'), typeList: [], severityList: null },
      ]);
      assert.equal((await ws.forCmd(4)).active, false, 'A-101 has an active CRITICAL alarm, but [] matches nothing');
      c.sim.data.createAlarm({ originator: dev('Thermo A-101'), type: 'Another' });
      assert.deepEqual(await ws.probe(), []);
    });

    it('duplicate cmdId ignored; unsubscribe stops transitions', async () => {
      const ws = await c.connect([
        { type: 'ALARM_STATUS', cmdId: 4, originatorId: dev('Thermo A-203'), typeList: null, severityList: null },
      ]);
      assert.equal((await ws.forCmd(4)).active, false);
      ws.cmds({
        type: 'ALARM_STATUS',
        cmdId: 4,
        originatorId: dev('Thermo A-101'),
        typeList: null,
        severityList: null,
      });
      assert.deepEqual(await ws.probe(), []);
      ws.cmds({ type: 'ENTITY_DATA_UNSUBSCRIBE', cmdId: 4 });
      await ws.probe();
      c.sim.data.createAlarm({ originator: dev('Thermo A-203'), type: 'X' });
      assert.deepEqual(await ws.probe(), []);
    });

    it('customers cannot watch entities of other customers', async () => {
      const ws = await c.connect(
        [{ type: 'ALARM_STATUS', cmdId: 4, originatorId: dev('Thermo B-101'), typeList: null, severityList: null }],
        'customer@thingsboard.org',
      );
      const m = await ws.next();
      assert.deepEqual(
        [m.subscriptionId, m.errorCode, m.errorMsg],
        [4, 1, "You don't have permission to perform this operation!"],
      );
    });
  });
});
