import assert from 'node:assert/strict';
import {
  BASE_TIME,
  HOUR,
  Simulator,
  dbl,
  javaValueString,
  sqlValueString,
  type ChangeEvent,
  type KvEntry,
} from '../../sim/index';
import { compileLike, splitInList } from '../../sim/query/predicates';
import { ALL_DEVICES, THERMOSTATS, attr, field, findQuery, names, numPred, keyFilter, ts } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';

describe('simulator: dataset, mutations, key discovery', function () {
  const c = useSimSetup();

  describe('deterministic dataset', () => {
    it('two builds give identical ids and values', () => {
      const a = new Simulator();
      const b = new Simulator();
      assert.deepEqual(
        a.data.devices().map((d) => [d.id, d.name, d.createdTime]),
        b.data.devices().map((d) => [d.id, d.name, d.createdTime]),
      );
      assert.deepEqual(
        a.data.alarms().map((x) => x.id),
        b.data.alarms().map((x) => x.id),
      );
      assert.equal(a.data.tenantId, b.data.tenantId);
    });
    it('counts and history', () => {
      const d = c.sim.data;
      assert.deepEqual(
        [
          d.devices().length,
          d.assets().length,
          d.customers().length,
          d.entityViews().length,
          d.edges().length,
          d.dashboards().length,
          d.alarms().length,
        ],
        [28, 10, 3, 3, 2, 3, 16],
      );
      const h = d.history(
        d.mustFindByName('DEVICE', 'Thermo A-101').id,
        'temperature',
        BASE_TIME - 24 * HOUR,
        BASE_TIME,
      );
      assert.equal(h.length, 25);
      assert.equal(h[24].ts, BASE_TIME);
      assert.equal(h[24].value, 21.5);
      assert.ok(h.every((p, i) => i === 0 || p.ts - h[i - 1].ts === HOUR));
    });
  });

  describe('mutations emit change events and invalidate caches', () => {
    const events: ChangeEvent[] = [];
    const listener = (e: ChangeEvent): void => {
      events.push(e);
    };
    beforeEach(() => {
      events.length = 0;
      c.sim.data.on('change', listener);
    });
    afterEach(() => {
      c.sim.data.off('change', listener);
    });
    const tempOf = async (name: string): Promise<string> => {
      const p = await c.tenant.ok(
        '/api/entitiesQuery/find',
        findQuery(
          { type: 'entityName', entityType: 'DEVICE', entityNameFilter: name },
          { latestValues: [ts('temperature')] },
        ),
      );
      return p.data[0].latest.TIME_SERIES.temperature.value as string;
    };

    it('setTelemetry: latest moves forward only, history keeps every point', async () => {
      const dev = c.sim.data.mustFindByName('DEVICE', 'Thermo G-103');
      assert.equal(await tempOf('Thermo G-103'), '23.5');
      c.sim.data.setTelemetry(dev, { temperature: dbl(31) });
      assert.equal(await tempOf('Thermo G-103'), '31');
      const ev = events[0];
      assert.equal(ev.kind, 'telemetry');
      if (ev.kind === 'telemetry') {
        assert.deepEqual(ev.entityId, { entityType: 'DEVICE', id: dev.id });
        assert.deepEqual(ev.entries.temperature, { ts: c.clock.now, type: 'DOUBLE', value: 31 });
        assert.equal(javaValueString(ev.entries.temperature), '31.0');
      }
      c.sim.data.setTelemetry(dev, { temperature: 5 }, BASE_TIME - 100 * HOUR);
      assert.equal(await tempOf('Thermo G-103'), '31', 'an older point does not replace latest');
      assert.equal(c.sim.data.history(dev.id, 'temperature').length, 27);
      const hot = await c.tenant.ok('/api/entitiesQuery/count', {
        entityFilter: ALL_DEVICES,
        keyFilters: [keyFilter(ts('temperature'), numPred('GREATER', 30))],
      });
      assert.equal(hot, 2);
    });
    it('setAttributes and deleteKey', async () => {
      const dev = c.sim.data.mustFindByName('DEVICE', 'Spare Sensor');
      c.sim.data.setAttributes(dev, 'SERVER_SCOPE', { model: 'SP-1' });
      const q = findQuery(
        { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Spare' },
        { latestValues: [attr('model')] },
      );
      assert.equal(
        (await c.tenant.ok('/api/entitiesQuery/find', q)).data[0].latest.SERVER_ATTRIBUTE.model.value,
        'SP-1',
      );
      c.sim.data.deleteKey(dev, 'SERVER_SCOPE', 'model');
      assert.deepEqual((await c.tenant.ok('/api/entitiesQuery/find', q)).data[0].latest.SERVER_ATTRIBUTE.model, {
        ts: 0,
        value: '',
      });
      assert.deepEqual(
        events.map((e) => e.kind),
        ['attributes', 'keysDeleted'],
      );
    });
    it('alarm lifecycle', async () => {
      const dev = c.sim.data.mustFindByName('DEVICE', 'Spare Sensor');
      const count = async (statusList: string[]): Promise<number> =>
        (await c.tenant.ok('/api/alarmsQuery/count', {
          entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: dev.id } },
          statusList,
        })) as number;
      const a = c.sim.data.createAlarm({ originator: dev, type: 'Test', severity: 'MINOR' });
      assert.equal(a.createdTime, c.clock.now);
      assert.equal(await count(['ACTIVE', 'UNACK']), 1);
      c.sim.data.ackAlarm(a.id);
      assert.equal(await count(['ACTIVE', 'ACK']), 1);
      c.sim.data.clearAlarm(a.id);
      assert.equal(await count(['CLEARED', 'ACK']), 1);
      assert.equal(c.sim.data.alarmInfo(a).status, 'CLEARED_ACK');
      c.sim.data.deleteAlarm(a.id);
      assert.equal(await count([]), 0);
      assert.deepEqual(
        events.map((e) => (e.kind === 'alarm' ? e.action : e.kind)),
        ['created', 'acknowledged', 'cleared', 'deleted'],
      );
    });
    it('addEntity, addRelation, removeEntity', async () => {
      const floor = c.sim.data.mustFindByName('ASSET', 'Gamma Floor 2');
      const e = c.sim.data.addEntity({
        entityType: 'DEVICE',
        name: 'Thermo G-204',
        type: 'thermostat',
        label: 'Room 204',
      });
      c.sim.data.addRelation(floor, e, 'Contains');
      const rel = findQuery({
        type: 'relationsQuery',
        rootEntity: { entityType: 'ASSET', id: floor.id },
        direction: 'FROM',
        maxLevel: 1,
      });
      assert.ok(names(await c.tenant.ok('/api/entitiesQuery/find', rel)).includes('Thermo G-204'));
      assert.equal(await c.tenant.ok('/api/entitiesQuery/count', { entityFilter: THERMOSTATS }), 21);
      c.sim.data.removeEntity(e.id);
      assert.equal(await c.tenant.ok('/api/entitiesQuery/count', { entityFilter: THERMOSTATS }), 20);
      assert.equal(c.sim.data.relationsFrom(floor.id).length, 4);
      assert.deepEqual(
        events.map((x) => x.kind),
        ['entity', 'relation', 'relation', 'entity'],
      );
    });
  });

  describe('key discovery', () => {
    const single = (name: string, type = 'DEVICE'): Record<string, unknown> =>
      findQuery({
        type: 'singleEntity',
        singleEntity: { entityType: type, id: c.sim.data.mustFindByName(type as 'DEVICE', name).id },
      });
    it('v1: singular "attribute", sorted, scope filter', async () => {
      const r = await c.tenant.ok(
        '/api/entitiesQuery/find/keys?timeseries=true&attributes=true',
        single('Thermo A-101'),
      );
      assert.deepEqual(r, {
        entityTypes: ['DEVICE'],
        timeseries: ['humidity', 'temperature'],
        attribute: ['active', 'config', 'fw', 'model', 'note', 'reportingInterval', 'serial', 'targetTemperature'],
      });
      const client = await c.tenant.ok(
        '/api/entitiesQuery/find/keys?timeseries=false&attributes=true&scope=CLIENT_SCOPE',
        single('Thermo A-101'),
      );
      assert.deepEqual(client, { entityTypes: ['DEVICE'], timeseries: [], attribute: ['fw', 'note', 'serial'] });
      const none = await c.tenant.ok(
        '/api/entitiesQuery/find/keys?timeseries=false&attributes=false',
        single('Thermo A-101'),
      );
      assert.deepEqual(none, { entityTypes: [], timeseries: [], attribute: [] });
      const missing = await c.tenant.post('/api/entitiesQuery/find/keys?timeseries=true', single('Thermo A-101'));
      assert.equal(missing.status, 500);
    });
    it('v2: typed samples, attributes by scope', async () => {
      const r = await c.tenant.ok('/api/v2/entitiesQuery/find/keys?includeSamples=true', single('Thermo A-101'));
      assert.deepEqual(r.entityTypes, ['DEVICE']);
      assert.deepEqual(r.timeseries, [
        { key: 'humidity', sample: { ts: BASE_TIME, value: 40 } },
        { key: 'temperature', sample: { ts: BASE_TIME, value: 21.5 } },
      ]);
      assert.deepEqual(Object.keys(r.attributes), ['CLIENT_SCOPE', 'SERVER_SCOPE', 'SHARED_SCOPE']);
      assert.deepEqual(r.attributes.SHARED_SCOPE.find((k: { key: string }) => k.key === 'config').sample.value, {
        mode: 'eco',
        interval: 60,
      });
      assert.equal(r.attributes.SERVER_SCOPE.find((k: { key: string }) => k.key === 'active').sample.value, true);
      const plain = await c.tenant.ok(
        '/api/v2/entitiesQuery/find/keys?includeTimeseries=false&scopes=SHARED_SCOPE,CLIENT_SCOPE',
        single('Thermo A-101'),
      );
      assert.deepEqual(plain, {
        entityTypes: ['DEVICE'],
        attributes: {
          CLIENT_SCOPE: [{ key: 'fw' }, { key: 'note' }, { key: 'serial' }],
          SHARED_SCOPE: [{ key: 'config' }, { key: 'reportingInterval' }, { key: 'targetTemperature' }],
        },
      });
    });
    it('v2: non-device entities only ever get SERVER_SCOPE', async () => {
      const r = await c.tenant.ok(
        '/api/v2/entitiesQuery/find/keys?scopes=SHARED_SCOPE',
        single('Building Alpha', 'ASSET'),
      );
      assert.deepEqual(r, { entityTypes: ['ASSET'], timeseries: [] });
      const s = await c.tenant.ok('/api/v2/entitiesQuery/find/keys', single('Building Alpha', 'ASSET'));
      assert.deepEqual(s.attributes, { SERVER_SCOPE: [{ key: 'address' }, { key: 'area' }, { key: 'floorCount' }] });
    });
    it('v2: no entity, both includes false, old server version', async () => {
      const none = await c.tenant.ok(
        '/api/v2/entitiesQuery/find/keys',
        findQuery({ type: 'deviceType', deviceTypes: ['none'] }),
      );
      assert.deepEqual(none, { entityTypes: [], timeseries: [], attributes: {} });
      const bad = await c.tenant.post(
        '/api/v2/entitiesQuery/find/keys?includeTimeseries=false&includeAttributes=false',
        single('Thermo A-101'),
      );
      assert.deepEqual(
        [bad.status, bad.body.errorCode, bad.body.message],
        [400, 31, "At least one of 'includeTimeseries' or 'includeAttributes' must be true"],
      );
      c.sim.setVersion('4.3.1.1');
      try {
        const old = await c.tenant.post('/api/v2/entitiesQuery/find/keys', single('Thermo A-101'));
        assert.deepEqual([old.status, old.body.error], [404, 'Not Found']);
        assert.equal(
          (await c.tenant.post('/api/entitiesQuery/find/keys?timeseries=true&attributes=true', single('Thermo A-101')))
            .status,
          200,
        );
      } finally {
        c.sim.setVersion('4.3.1.3');
      }
    });
  });

  describe('bench devices (extraDevices)', () => {
    it('are generated lazily, paged and sorted like the rest', async () => {
      const sim = new Simulator({ dataset: { extraDevices: 2500 } });
      await sim.start();
      try {
        const { token } = sim.tokensFor('tenant@thingsboard.org');
        const post = async (body: unknown): Promise<{ status: number; json: unknown }> => {
          const r = await fetch(`${sim.url}/api/entitiesQuery/find`, {
            method: 'POST',
            headers: { 'X-Authorization': `Bearer ${token}` },
            body: JSON.stringify(body),
          });
          return { status: r.status, json: await r.json() };
        };
        const bench = { type: 'deviceType', deviceTypes: ['bench'] };
        const q = (page: number, direction = 'ASC'): unknown => ({
          entityFilter: bench,
          entityFields: [field('name'), field('label')],
          latestValues: ['temperature', 'humidity', 'power', 'energy'].map(ts),
          pageLink: { page, pageSize: 100, sortOrder: { key: field('name'), direction } },
        });
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response JSON
        const p0 = (await post(q(0))).json as any;
        assert.deepEqual([p0.totalElements, p0.totalPages, p0.hasNext], [2500, 25, true]);
        assert.equal(p0.data[0].latest.ENTITY_FIELD.name.value, 'Bench-000001');
        assert.equal(p0.data[0].latest.ENTITY_FIELD.label.value, 'Bench device 1');
        assert.deepEqual(Object.keys(p0.data[0].latest.TIME_SERIES), ['temperature', 'humidity', 'power', 'energy']);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response JSON
        const last = (await post(q(24))).json as any;
        assert.equal(last.data[99].latest.ENTITY_FIELD.name.value, 'Bench-002500');
        assert.equal(last.hasNext, false);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response JSON
        const again = (await post(q(0))).json as any;
        assert.deepEqual(
          again.data.map((d: { entityId: { id: string } }) => d.entityId.id),
          p0.data.map((d: { entityId: { id: string } }) => d.entityId.id),
          'cached page answers the same',
        );
        assert.ok(sim.entityQuery.stats.hits >= 2);
        const b7 = sim.data.mustFindByName('DEVICE', 'Bench-000007');
        sim.data.setTelemetry(b7, { temperature: dbl(99.5) });
        type Row = { latest: Record<string, Record<string, { value: string }>> };
        const hot = (
          await post({
            ...(q(0) as object),
            pageLink: { page: 0, pageSize: 1, sortOrder: { key: ts('temperature'), direction: 'DESC' } },
          })
        ).json as { data: Row[] };
        assert.equal(hot.data[0].latest.ENTITY_FIELD.name.value, 'Bench-000007');
        assert.equal(hot.data[0].latest.TIME_SERIES.temperature.value, '99.5');
        assert.equal(sim.data.countOfType('DEVICE'), 2528);
        sim.data.removeEntity(b7);
        assert.equal(sim.data.findByName('DEVICE', 'Bench-000007'), undefined);
        assert.equal(sim.data.countOfType('DEVICE'), 2527);
      } finally {
        await sim.stop();
      }
    });
  });

  describe('value formatting and string rules', () => {
    const e = (type: KvEntry['type'], value: unknown): KvEntry => ({ ts: 0, type, value }) as KvEntry;
    const cases: [KvEntry, string, string][] = [
      [e('DOUBLE', 23), '23', '23.0'],
      [e('DOUBLE', 23.5), '23.5', '23.5'],
      [e('DOUBLE', 1e20), '1e+20', '1.0E20'],
      [e('DOUBLE', 0.0005), '0.0005', '5.0E-4'], // convertValue keeps text whose Java form is E notation
      [e('DOUBLE', 12345678.9), '12345678.9', '1.23456789E7'],
      [e('DOUBLE', 1e-5), '1e-05', '1.0E-5'],
      [e('LONG', 42), '42', '42'],
      [e('BOOLEAN', true), 'true', 'true'],
      [e('STRING', '007'), '007', '007'],
      [e('STRING', '23.50'), '23.5', '23.50'],
      // EntityDataAdapterTest#testConvertValue (HEAD), then the integer and sign cases of the same code
      [e('STRING', '500'), '500', '500'],
      [e('STRING', '500D'), '500D', '500D'],
      [e('STRING', '0101010521130565'), '0101010521130565', '0101010521130565'],
      [e('STRING', '89010303310033979663'), '89010303310033979663', '89010303310033979663'],
      [e('STRING', '89914009129080723322'), '89914009129080723322', '89914009129080723322'],
      [e('STRING', '899140091AAAA29080723322'), '899140091AAAA29080723322', '899140091AAAA29080723322'],
      [e('STRING', '899140091.29080723322'), '899140091.29080723322', '899140091.29080723322'],
      [e('STRING', '-007'), '-7', '-007'],
      [e('STRING', '0.30000000000000001'), '0.3', '0.30000000000000001'],
      [e('STRING', 'n/a'), 'n/a', 'n/a'],
      [e('JSON', '{"a":1}'), '{"a":1}', '{"a":1}'],
    ];
    for (const [entry, sql, java] of cases) {
      it(`${entry.type} ${String(entry.value)} -> REST "${sql}", WS "${java}"`, () => {
        assert.equal(sqlValueString(entry), sql);
        assert.equal(javaValueString(entry), java);
      });
    }
    it('IN splitting', () => {
      assert.deepEqual(splitInList(' a , b,c '), ['a', 'b', 'c']);
      assert.deepEqual(splitInList("'a', 'b'"), ['a', 'b']);
      assert.deepEqual(splitInList('"a","b"'), ['a', 'b']);
      assert.deepEqual(splitInList("'a', b"), ["'a'", 'b']);
      assert.deepEqual(splitInList('\'a\', "b"'), ["'a'", '"b"']);
    });
    it('LIKE', () => {
      assert.ok(compileLike('a%c')('abbbc'));
      assert.ok(compileLike('a_c')('abc'));
      assert.ok(!compileLike('a_c')('abbc'));
      assert.ok(compileLike('%b%')('abc'));
      assert.ok(compileLike('a\\%')('a%'));
      assert.ok(!compileLike('a\\%')('ab'));
      assert.ok(compileLike('%x%y%')('__x__y'));
      assert.ok(!compileLike('%x%y%')('__y__x'));
    });
  });
});
