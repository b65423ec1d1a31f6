import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim/index';
import { ALL_DEVICES, field, login, ts, type Ctx } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';

describe('simulator: alarm data query', function () {
  const c = useSimSetup();

  const alarmQuery = (
    pageLink: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({
    entityFilter: ALL_DEVICES,
    keyFilters: [],
    entityFields: [field('name')],
    latestValues: [],
    alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
    ...extra,
    pageLink: {
      page: 0,
      pageSize: 100,
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
      ...pageLink,
    },
  });
  const find = (q: Record<string, unknown>, client = (): Ctx['tenant'] => c.tenant) =>
    client().ok('/api/alarmsQuery/find', q);
  const count = async (q: Record<string, unknown>, client = (): Ctx['tenant'] => c.tenant): Promise<number> =>
    (await client().ok('/api/alarmsQuery/count', q)) as number;
  const origins = (page: { data: { originatorName: string }[] }): string[] => page.data.map((a) => a.originatorName);
  const id = (type: 'DEVICE' | 'ASSET' | 'CUSTOMER', name: string): string => c.sim.data.mustFindByName(type, name).id;

  it('REST alarm queries resolve no dynamic value (DefaultEntityQueryService#findAlarmDataByQuery, #countAlarmsByQuery)', async () => {
    const dyn = (sourceType: string, defaultValue: number): unknown => ({
      key: ts('temperature'),
      valueType: 'NUMERIC',
      predicate: {
        type: 'NUMERIC',
        operation: 'GREATER',
        value: { defaultValue, dynamicValue: { sourceType, sourceAttribute: 'tempThreshold' } },
      },
    });
    const fixed = (v: number): unknown => ({
      key: ts('temperature'),
      valueType: 'NUMERIC',
      predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: v } },
    });
    // the tenant's tempThreshold (25) is not read: the default applies, and CURRENT_DEVICE is no error
    for (const sourceType of ['CURRENT_TENANT', 'CURRENT_DEVICE']) {
      for (const d of [0, 29]) {
        assert.equal(
          (await find(alarmQuery({}, { keyFilters: [dyn(sourceType, d)] }))).totalElements,
          (await find(alarmQuery({}, { keyFilters: [fixed(d)] }))).totalElements,
        );
        assert.equal(
          await count({ entityFilter: ALL_DEVICES, keyFilters: [dyn(sourceType, d)] }),
          await count({ entityFilter: ALL_DEVICES, keyFilters: [fixed(d)] }),
        );
      }
    }
  });

  describe('filters (find and count agree)', () => {
    const cases: { name: string; pageLink: Record<string, unknown>; expect: number }[] = [
      { name: 'no filter: every device alarm', pageLink: {}, expect: 15 },
      { name: 'statusList [ACTIVE]', pageLink: { statusList: ['ACTIVE'] }, expect: 9 },
      { name: 'statusList [ACTIVE, UNACK] is AND', pageLink: { statusList: ['ACTIVE', 'UNACK'] }, expect: 4 },
      {
        name: 'statusList [ACTIVE, CLEARED] is no condition',
        pageLink: { statusList: ['ACTIVE', 'CLEARED'] },
        expect: 15,
      },
      { name: 'statusList [ACK]', pageLink: { statusList: ['ACK'] }, expect: 9 },
      { name: 'statusList [CLEARED, UNACK]', pageLink: { statusList: ['CLEARED', 'UNACK'] }, expect: 2 },
      { name: 'statusList [ANY]', pageLink: { statusList: ['ANY', 'ACTIVE'] }, expect: 15 },
      { name: 'severityList', pageLink: { severityList: ['CRITICAL'] }, expect: 4 },
      { name: 'severityList several', pageLink: { severityList: ['MINOR', 'WARNING'] }, expect: 5 },
      { name: 'typeList', pageLink: { typeList: ['Power Failure'] }, expect: 3 },
      { name: 'assigneeId', pageLink: { assigneeId: { entityType: 'USER', id: '' } }, expect: 2 },
      {
        name: 'combined',
        pageLink: { statusList: ['ACTIVE'], severityList: ['CRITICAL', 'MAJOR'], typeList: ['High Temperature'] },
        expect: 3,
      },
    ];
    for (const t of cases) {
      it(t.name, async () => {
        const pl = { ...t.pageLink };
        if (pl.assigneeId) pl.assigneeId = { entityType: 'USER', id: c.sim.auth.user('tech@thingsboard.org')?.userId };
        const page = await find(alarmQuery(pl));
        assert.equal(page.totalElements, t.expect, JSON.stringify(origins(page)));
        const { page: _p, pageSize: _s, sortOrder: _o, ...flat } = { page: 0, pageSize: 0, sortOrder: null, ...pl };
        assert.equal(await count({ entityFilter: ALL_DEVICES, ...flat }), t.expect);
      });
    }
  });

  describe('time window', () => {
    it('find with timeWindow and startTs 0 uses [now - window, now]', async () => {
      const page = await find(alarmQuery({ timeWindow: 24 * HOUR }));
      assert.equal(page.totalElements, 13);
    });
    it('find with startTs + timeWindow uses [startTs, startTs + window]', async () => {
      const page = await find(alarmQuery({ startTs: BASE_TIME - 10 * HOUR, timeWindow: 2 * HOUR }));
      assert.deepEqual(origins(page), ['Thermo B-102', 'Thermo B-201', 'Meter B-100']);
    });
    it('count with timeWindow ignores startTs', async () => {
      assert.equal(await count({ startTs: BASE_TIME - 10 * HOUR, timeWindow: 2 * HOUR }), 1);
    });
    it('startTs / endTs without a window, inclusive', async () => {
      const page = await find(alarmQuery({ startTs: BASE_TIME - 3 * HOUR, endTs: BASE_TIME - 1 * HOUR }));
      assert.deepEqual(origins(page), ['Thermo A-101', 'Thermo A-102', 'Meter A-100']);
      assert.equal(
        await count({ entityFilter: ALL_DEVICES, startTs: BASE_TIME - 3 * HOUR, endTs: BASE_TIME - 1 * HOUR }),
        3,
      );
    });
    it('moves with the simulator clock', async () => {
      c.clock.now = BASE_TIME + 100 * HOUR;
      try {
        const fresh = await login(c.url, 'tenant@thingsboard.org', 'tenant');
        assert.equal((await find(alarmQuery({ timeWindow: 24 * HOUR }), () => fresh)).totalElements, 0);
        assert.equal((await find(alarmQuery({ timeWindow: 200 * HOUR }), () => fresh)).totalElements, 15);
      } finally {
        c.clock.now = BASE_TIME + 30 * 60_000;
      }
    });
  });

  describe('propagation', () => {
    const single = (type: 'ASSET' | 'CUSTOMER', name: string): unknown => ({
      type: 'singleEntity',
      singleEntity: { entityType: type, id: id(type, name) },
    });
    it('searchPropagatedAlarms finds alarms propagated to parents', async () => {
      const page = await find(
        alarmQuery({ searchPropagatedAlarms: true }, { entityFilter: single('ASSET', 'Campus North') }),
      );
      assert.deepEqual(origins(page), ['Thermo A-101', 'Meter A-100', 'Thermo B-101']);
      for (const a of page.data) assert.deepEqual(a.entityId, { entityType: 'ASSET', id: id('ASSET', 'Campus North') });
    });
    it('without searchPropagatedAlarms only the originator counts', async () => {
      const page = await find(alarmQuery({}, { entityFilter: single('ASSET', 'Campus North') }));
      assert.equal(page.totalElements, 0);
    });
    it('propagation by relation type, owner and tenant', async () => {
      const alpha = await find(
        alarmQuery({ searchPropagatedAlarms: true }, { entityFilter: single('ASSET', 'Building Alpha') }),
      );
      assert.deepEqual(origins(alpha), ['Thermo A-101', 'Meter A-100']);
      const owner = await find(
        alarmQuery({ searchPropagatedAlarms: true }, { entityFilter: single('CUSTOMER', 'Customer B') }),
      );
      assert.deepEqual(origins(owner), ['Meter B-100']);
    });
    it('count with searchPropagatedAlarms and an entity list counts an alarm once per entity', async () => {
      const list = {
        type: 'entityList',
        entityType: 'ASSET',
        entityList: [id('ASSET', 'Campus North'), id('ASSET', 'Building Alpha')],
      };
      assert.equal(await count({ entityFilter: list, searchPropagatedAlarms: true }), 5);
      const page = await find(alarmQuery({ searchPropagatedAlarms: true }, { entityFilter: list }));
      assert.equal(page.totalElements, 5);
    });
  });

  describe('sorting and text search', () => {
    it('severity sorts alphabetically (a varchar column)', async () => {
      const page = await find(
        alarmQuery({
          statusList: ['ACTIVE'],
          sortOrder: { key: { type: 'ALARM_FIELD', key: 'severity' }, direction: 'ASC' },
        }),
      );
      assert.deepEqual(
        page.data.map((a: { severity: string }) => a.severity),
        ['CRITICAL', 'CRITICAL', 'INDETERMINATE', 'INDETERMINATE', 'MAJOR', 'MAJOR', 'MINOR', 'WARNING', 'WARNING'],
      );
    });
    it('createdTime DESC and ASC', async () => {
      const desc = await find(alarmQuery({ pageSize: 2 }));
      assert.deepEqual(origins(desc), ['Thermo A-101', 'Thermo A-102']);
      assert.deepEqual([desc.totalPages, desc.hasNext], [8, true]);
      const asc = await find(
        alarmQuery({ pageSize: 1, sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'ASC' } }),
      );
      assert.deepEqual(origins(asc), ['Thermo A-103']);
    });
    it('sort by assignee puts unassigned last when ASC', async () => {
      const page = await find(
        alarmQuery({ sortOrder: { key: { type: 'ALARM_FIELD', key: 'assignee' }, direction: 'ASC' } }),
      );
      const emails = page.data.map((a: { assignee: { email: string } | null }) => a.assignee?.email ?? null);
      assert.deepEqual(emails.slice(0, 4), [
        'tech@thingsboard.org',
        'tech@thingsboard.org',
        'tenant@thingsboard.org',
        'tenant@thingsboard.org',
      ]);
      assert.equal(emails[14], null);
    });
    it('without an ALARM_FIELD sort the entity order decides (entity sort key)', async () => {
      const page = await find(alarmQuery({ pageSize: 1, sortOrder: { key: field('name'), direction: 'DESC' } }));
      assert.deepEqual(origins(page), ['Thermo G-201']);
      const byCreated = await find(alarmQuery({ pageSize: 1, sortOrder: undefined }));
      assert.deepEqual(origins(byCreated), ['Meter A-100'], 'entities by createdTime ASC');
    });
    it('textSearch looks at the alarmFields columns only', async () => {
      const q = (alarmFields: unknown[], text: string): Record<string, unknown> =>
        alarmQuery({ textSearch: text }, { alarmFields });
      assert.equal((await find(q([{ type: 'ALARM_FIELD', key: 'type' }], 'power'))).totalElements, 3);
      assert.equal((await find(q([{ type: 'ALARM_FIELD', key: 'type' }], 'room'))).totalElements, 0);
      assert.equal((await find(q([{ type: 'ALARM_FIELD', key: 'originatorLabel' }], 'room 10'))).totalElements, 5);
      assert.equal((await find(q([{ type: 'ALARM_FIELD', key: 'assignee' }], 'terry'))).totalElements, 2);
      assert.equal((await find(q([], 'power'))).totalElements, 15, 'no searchable column: no condition');
    });
  });

  describe('shape and errors', () => {
    it('AlarmData has every AlarmInfo field plus entityId and latest', async () => {
      const page = await find(alarmQuery({ pageSize: 1 }, { latestValues: [ts('temperature')] }));
      const a = page.data[0];
      assert.deepEqual(Object.keys(a), [
        'id',
        'createdTime',
        'tenantId',
        'customerId',
        'type',
        'originator',
        'severity',
        'acknowledged',
        'cleared',
        'assigneeId',
        'startTs',
        'endTs',
        'ackTs',
        'clearTs',
        'assignTs',
        'details',
        'propagate',
        'propagateToOwner',
        'propagateToTenant',
        'propagateRelationTypes',
        'name',
        'status',
        'originatorName',
        'originatorLabel',
        'originatorDisplayName',
        'assignee',
        'entityId',
        'latest',
      ]);
      const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      assert.deepEqual(a.id.entityType, 'ALARM');
      assert.deepEqual(a.originator, { entityType: 'DEVICE', id: dev.id });
      assert.deepEqual(a.entityId, { entityType: 'DEVICE', id: dev.id });
      assert.deepEqual(a.customerId, { entityType: 'CUSTOMER', id: dev.customerId });
      assert.deepEqual(
        [a.type, a.name, a.severity, a.status, a.acknowledged, a.cleared],
        ['High Temperature', 'High Temperature', 'CRITICAL', 'ACTIVE_UNACK', false, false],
      );
      assert.deepEqual(
        [a.originatorName, a.originatorLabel, a.originatorDisplayName],
        ['Thermo A-101', 'Room 101', 'Room 101'],
      );
      assert.deepEqual(a.details, { temperature: 26.5, threshold: 25 });
      assert.deepEqual([a.assigneeId, a.assignee, a.propagate, a.propagateRelationTypes], [null, null, true, []]);
      assert.equal(a.latest.ENTITY_FIELD.name.value, 'Thermo A-101');
      assert.equal(a.latest.TIME_SERIES.temperature.value, '21.5');
      const assigned = (
        await find(
          alarmQuery({ assigneeId: { entityType: 'USER', id: c.sim.auth.user('tenant@thingsboard.org')?.userId } }),
        )
      ).data[0];
      assert.deepEqual(assigned.assignee, {
        id: { entityType: 'USER', id: c.sim.auth.user('tenant@thingsboard.org')?.userId },
        firstName: 'Tenant',
        lastName: 'Admin',
        email: 'tenant@thingsboard.org',
      });
      assert.ok(assigned.ackTs > 0 && assigned.assignTs > 0);
    });
    it('missing pageLink: 404 code 32', async () => {
      const { pageLink: _pl, ...q } = alarmQuery();
      const r = await c.tenant.post('/api/alarmsQuery/find', q);
      assert.deepEqual([r.status, r.body.errorCode, r.body.message], [404, 32, "Requested item wasn't found!"]);
    });
    it('missing alarmFields: 500 (NPE) when entities match, empty page otherwise', async () => {
      const { alarmFields: _af, ...q } = alarmQuery();
      const r = await c.tenant.post('/api/alarmsQuery/find', q);
      assert.equal(r.status, 500);
      assert.equal(r.body.errorCode, 2);
      assert.match(r.body.message, /getAlarmFields\(\)" is null/);
      const none = await c.tenant.post('/api/alarmsQuery/find', {
        ...q,
        entityFilter: { type: 'deviceType', deviceTypes: ['none'] },
      });
      assert.deepEqual(none.body, { data: [], totalPages: 0, totalElements: 0, hasNext: false });
    });
    it('ALARM_FIELD sort without direction: 500', async () => {
      const r = await c.tenant.post(
        '/api/alarmsQuery/find',
        alarmQuery({ sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' } } }),
      );
      assert.equal(r.status, 500);
    });
    it('missing entityFilter on find: 400', async () => {
      const r = await c.tenant.post('/api/alarmsQuery/find', { ...alarmQuery(), entityFilter: undefined });
      assert.deepEqual([r.status, r.body.message], [400, 'Query entity filter must be specified.']);
    });
    it('sysadmin: 403 code 20', async () => {
      const sys = await login(c.url, 'sysadmin@thingsboard.org', 'sysadmin');
      for (const p of ['/api/alarmsQuery/find', '/api/alarmsQuery/count']) {
        const r = await sys.post(p, alarmQuery());
        assert.deepEqual(
          [r.status, r.body.errorCode, r.body.message],
          [403, 20, "You don't have permission to perform this operation!"],
        );
      }
      assert.equal(await sys.ok('/api/entitiesQuery/count', { entityFilter: ALL_DEVICES }), 0);
    });
  });

  describe('counts and permissions', () => {
    it('count without entityFilter: all tenant alarms', async () => {
      assert.equal(await count({}), 16);
      assert.equal(await count({ statusList: ['ACTIVE'] }), 10);
      const r = await c.tenant.post('/api/alarmsQuery/count', {});
      assert.equal(r.text, '16');
    });
    it("customer user sees its customer's alarms only", async () => {
      assert.equal(await count({}, () => c.customer), 6);
      const page = await find(alarmQuery(), () => c.customer);
      assert.equal(page.totalElements, 6);
      assert.ok(origins(page).every((n) => n.includes(' A-')));
    });
    it('alarm counts per status and severity (dataset facts)', async () => {
      const st = async (statusList: string[]): Promise<number> => count({ statusList });
      assert.deepEqual(
        [
          await st(['ACTIVE', 'UNACK']),
          await st(['ACTIVE', 'ACK']),
          await st(['CLEARED', 'UNACK']),
          await st(['CLEARED', 'ACK']),
        ],
        [5, 5, 2, 4],
      );
      const sv: number[] = [];
      for (const s of ['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'])
        sv.push(await count({ severityList: [s] }));
      assert.deepEqual(sv, [4, 3, 3, 3, 3]);
    });
  });
});
