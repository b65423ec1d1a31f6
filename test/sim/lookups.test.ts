import assert from 'node:assert/strict';
import { BASE_TIME } from '../../sim/dataset';
import { Simulator } from '../../sim/index';
import { Client, login, NOW } from '../../sim/testkit';
import { useSimSetup } from '../support/simulator';

const get = (c: Client, path: string) => c.request('GET', path);

describe('simulator: editor look-ups (§12)', function () {
  const c = useSimSetup({}, { perTest: true });
  let sysadmin: Client;
  beforeEach(async () => {
    sysadmin = await login(c.url, 'sysadmin@thingsboard.org', 'sysadmin');
  });

  const tenantRef = () => ({ entityType: 'TENANT', id: c.sim.data.tenantId });
  const profile = (type: 'DEVICE_PROFILE' | 'ASSET_PROFILE', name: string) =>
    c.sim.data.list(type).find((p) => p.name === name)!;
  const expectError = async (
    path: string,
    status: number,
    errorCode: number,
    message: string,
    client = c.tenant,
  ): Promise<void> => {
    const r = await get(client, path);
    assert.deepEqual(r.body, { status, message, errorCode, timestamp: NOW }, `${path}: ${r.text}`);
    assert.equal(r.status, status);
  };
  const expectSpring404 = async (path: string): Promise<void> => {
    const r = await get(c.tenant, path);
    assert.equal(r.status, 404, path);
    assert.deepEqual([r.body.status, r.body.error, r.body.path], [404, 'Not Found', path.replace(/\?.*/, '')]);
  };

  describe('device and asset profile infos', () => {
    it('pages the tenant profiles sorted by name, in the DeviceProfileInfo shape', async () => {
      const r = await get(c.tenant, '/api/deviceProfileInfos?pageSize=10&page=0&sortProperty=name&sortOrder=ASC');
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.data.map((p: { name: string }) => p.name),
        ['default', 'meter', 'thermostat'],
      );
      assert.deepEqual([r.body.totalPages, r.body.totalElements, r.body.hasNext], [1, 3, false]);
      const t = profile('DEVICE_PROFILE', 'thermostat');
      assert.deepEqual(r.body.data[2], {
        id: { entityType: 'DEVICE_PROFILE', id: t.id },
        tenantId: tenantRef(),
        name: 'thermostat',
        image: null,
        defaultDashboardId: null,
        type: 'DEFAULT',
        transportType: 'DEFAULT',
      });
    });

    it('textSearch is a case-insensitive "contains" on the name; paging and DESC', async () => {
      let r = await get(c.tenant, '/api/deviceProfileInfos?pageSize=10&page=0&textSearch=THERM');
      assert.deepEqual(
        r.body.data.map((p: { name: string }) => p.name),
        ['thermostat'],
      );
      r = await get(c.tenant, '/api/deviceProfileInfos?pageSize=10&page=0&textSearch=e&sortProperty=name');
      assert.deepEqual(
        r.body.data.map((p: { name: string }) => p.name),
        ['default', 'meter', 'thermostat'],
      );
      r = await get(c.tenant, '/api/deviceProfileInfos?pageSize=2&page=0&sortProperty=name&sortOrder=desc');
      assert.deepEqual(
        r.body.data.map((p: { name: string }) => p.name),
        ['thermostat', 'meter'],
      );
      assert.deepEqual([r.body.totalPages, r.body.totalElements, r.body.hasNext], [2, 3, true]);
      r = await get(c.tenant, '/api/deviceProfileInfos?pageSize=2&page=1&sortProperty=name&sortOrder=DESC');
      assert.deepEqual(
        r.body.data.map((p: { name: string }) => p.name),
        ['default'],
      );
      assert.equal(r.body.hasNext, false);
      r = await get(c.tenant, '/api/deviceProfileInfos?pageSize=2&page=5');
      assert.deepEqual(r.body, { data: [], totalPages: 2, totalElements: 3, hasNext: false });
      r = await get(c.tenant, '/api/deviceProfileInfos?pageSize=10&page=0&transportType=MQTT');
      assert.equal(r.body.totalElements, 0);
    });

    it('asset profiles: the AssetProfileInfo shape; a customer user sees the tenant profiles too', async () => {
      const r = await get(c.customer, '/api/assetProfileInfos?pageSize=10&page=0&sortProperty=name&sortOrder=ASC');
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.data.map((p: { name: string }) => p.name),
        ['building', 'default', 'floor', 'site'],
      );
      assert.deepEqual(r.body.data[0], {
        id: { entityType: 'ASSET_PROFILE', id: profile('ASSET_PROFILE', 'building').id },
        tenantId: tenantRef(),
        name: 'building',
        image: null,
        defaultDashboardId: null,
      });
    });

    it("pageSize and page are required (500 code 2, BaseController maps Spring's exception); bad values 400", async () => {
      await expectError(
        '/api/deviceProfileInfos?page=0',
        500,
        2,
        "Required request parameter 'pageSize' for method parameter type int is not present",
      );
      await expectError(
        '/api/assetProfileInfos?pageSize=10',
        500,
        2,
        "Required request parameter 'page' for method parameter type int is not present",
      );
      await expectError(
        '/api/deviceProfileInfos?pageSize=ten&page=0',
        400,
        31,
        "Method parameter 'pageSize': Failed to convert value of type 'java.lang.String' to required type 'int'; For " +
          'input string: "ten"',
      );
      await expectError(
        '/api/deviceProfileInfos?pageSize=0&page=0',
        400,
        31,
        "Incorrect page link page size '0'. Page size must be greater than zero.",
      );
      await expectError(
        '/api/deviceProfileInfos?pageSize=5&page=-1',
        400,
        31,
        "Incorrect page link page '-1'. Page must be positive integer.",
      );
      await expectError(
        '/api/deviceProfileInfos?pageSize=5&page=0&sortProperty=name&sortOrder=UP',
        400,
        31,
        "Unsupported sort order 'UP'! Only 'ASC' or 'DESC' types are allowed.",
      );
      await expectError(
        '/api/deviceProfileInfos?pageSize=5&page=0&sortProperty=na%20me',
        400,
        31,
        'Invalid sort property',
      );
      await expectError(
        '/api/deviceProfileInfos?pageSize=5&page=0&transportType=FOO',
        400,
        31,
        'No enum constant org.thingsboard.server.common.data.DeviceTransportType.FOO',
      );
    });

    it('sysadmin: 403; no token: 401; asset profiles before 3.5: unknown path', async () => {
      await expectError(
        '/api/deviceProfileInfos?pageSize=5&page=0',
        403,
        20,
        "You don't have permission to perform this operation!",
        sysadmin,
      );
      await expectError('/api/deviceProfileInfos?pageSize=5&page=0', 401, 10, 'Authentication failed', c.anon);
      c.sim.setVersion('3.4.4');
      await expectSpring404('/api/assetProfileInfos?pageSize=5&page=0');
      assert.equal((await get(c.tenant, '/api/deviceProfileInfos?pageSize=5&page=0')).status, 200);
    });

    it('the bench profile exists with extra devices', async () => {
      const sim = new Simulator({ dataset: { extraDevices: 3 }, now: () => NOW });
      const url = await sim.start();
      try {
        const t = await login(url, 'tenant@thingsboard.org', 'tenant');
        const r = await get(t, '/api/deviceProfile/names?activeOnly=false');
        assert.deepEqual(
          r.body.map((p: { name: string }) => p.name),
          ['bench', 'default', 'meter', 'thermostat'],
        );
      } finally {
        await sim.stop();
      }
    });
  });

  describe('profile names', () => {
    it('device and asset profile names: [{id, name}] sorted by name, no paging', async () => {
      let r = await get(c.tenant, '/api/deviceProfile/names?activeOnly=false');
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body,
        ['default', 'meter', 'thermostat'].map((n) => ({
          id: { entityType: 'DEVICE_PROFILE', id: profile('DEVICE_PROFILE', n).id },
          name: n,
        })),
      );
      r = await get(c.customer, '/api/assetProfile/names');
      assert.deepEqual(
        r.body,
        ['building', 'default', 'floor', 'site'].map((n) => ({
          id: { entityType: 'ASSET_PROFILE', id: profile('ASSET_PROFILE', n).id },
          name: n,
        })),
      );
    });

    it('activeOnly=true keeps the profiles in use', async () => {
      const r = await get(c.tenant, '/api/assetProfile/names?activeOnly=true');
      assert.deepEqual(
        r.body.map((p: { name: string }) => p.name),
        ['building', 'floor', 'site'],
      );
      assert.equal((await get(c.tenant, '/api/deviceProfile/names?activeOnly=true')).body.length, 3);
      await expectError(
        '/api/deviceProfile/names?activeOnly=maybe',
        500,
        2,
        "Failed to convert value of type 'java.lang.String' to required type 'boolean'; Invalid boolean value [maybe]",
      );
    });

    it('missing before 3.6.2 (Spring 404), while the paged infos answer', async () => {
      c.sim.setVersion('3.6.1');
      await expectSpring404('/api/deviceProfile/names?activeOnly=false');
      await expectSpring404('/api/assetProfile/names?activeOnly=false');
      assert.equal((await get(c.tenant, '/api/assetProfileInfos?pageSize=5&page=0')).body.totalElements, 4);
    });
  });

  describe('entity view, edge and alarm types', () => {
    it('entity view and edge types: distinct, sorted, tenant-wide also for a customer user', async () => {
      for (const client of [c.tenant, c.customer]) {
        let r = await get(client, '/api/entityView/types');
        assert.deepEqual(
          r.body,
          ['meterView', 'roomView'].map((type) => ({ tenantId: tenantRef(), entityType: 'ENTITY_VIEW', type })),
        );
        r = await get(client, '/api/edge/types');
        assert.deepEqual(
          r.body,
          ['default', 'gateway'].map((type) => ({ tenantId: tenantRef(), entityType: 'EDGE', type })),
        );
      }
      await expectError('/api/edge/types', 403, 20, "You don't have permission to perform this operation!", sysadmin);
    });

    it('a new entity view type shows up once', async () => {
      c.sim.data.addEntity({ entityType: 'ENTITY_VIEW', name: 'View G-101', type: 'roomView' });
      c.sim.data.addEntity({ entityType: 'ENTITY_VIEW', name: 'Lab view', type: 'labView' });
      const r = await get(c.tenant, '/api/entityView/types');
      assert.deepEqual(
        r.body.map((t: { type: string }) => t.type),
        ['labView', 'meterView', 'roomView'],
      );
    });

    it('alarm types: PageData<EntitySubtype> sorted by type, textSearch contains, customer users get the tenant types', async () => {
      const all = ['Device Offline', 'High Temperature', 'Low Humidity', 'Maintenance Due', 'Power Failure'];
      for (const client of [c.tenant, c.customer]) {
        const r = await get(client, '/api/alarm/types?pageSize=10&page=0');
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, {
          data: all.map((type) => ({ tenantId: tenantRef(), entityType: 'ALARM', type })),
          totalPages: 1,
          totalElements: 5,
          hasNext: false,
        });
      }
      let r = await get(c.tenant, '/api/alarm/types?pageSize=10&page=0&textSearch=TEMP');
      assert.deepEqual(
        r.body.data.map((t: { type: string }) => t.type),
        ['High Temperature'],
      );
      r = await get(c.tenant, '/api/alarm/types?pageSize=2&page=1&sortOrder=DESC');
      assert.deepEqual(
        r.body.data.map((t: { type: string }) => t.type),
        ['Low Humidity', 'High Temperature'],
      );
      assert.deepEqual([r.body.totalPages, r.body.totalElements, r.body.hasNext], [3, 5, true]);
      r = await get(c.tenant, '/api/alarm/types?pageSize=10&page=3');
      assert.deepEqual(
        r.body,
        { data: [], totalPages: 0, totalElements: 0, hasNext: false },
        'an empty page is emptyPageData()',
      );
      c.sim.data.createAlarm({
        originator: c.sim.data.mustFindByName('DEVICE', 'Thermo A-101').id,
        type: 'Door Open',
        createdTime: BASE_TIME,
      });
      r = await get(c.tenant, '/api/alarm/types?pageSize=10&page=0&textSearch=o');
      assert.deepEqual(
        r.body.data.map((t: { type: string }) => t.type),
        ['Device Offline', 'Door Open', 'Low Humidity', 'Power Failure'],
      );
    });

    it('alarm types: errors, sysadmin 403, unknown before 3.6', async () => {
      await expectError(
        '/api/alarm/types?pageSize=10',
        500,
        2,
        "Required request parameter 'page' for method parameter type int is not present",
      );
      await expectError('/api/alarm/types?pageSize=0&page=0', 400, 31, 'Page size must not be less than one');
      await expectError('/api/alarm/types?pageSize=1&page=-2', 400, 31, 'Page index must not be less than zero');
      await expectError(
        '/api/alarm/types?pageSize=10&page=0',
        403,
        20,
        "You don't have permission to perform this operation!",
        sysadmin,
      );
      c.sim.setVersion('3.5.1');
      await expectSpring404('/api/alarm/types?pageSize=10&page=0');
    });
  });

  describe('system info', () => {
    it('answers the simulated version to every authority (type "CE" from 4.0)', async () => {
      const info = { version: '4.3.1.3', artifact: 'application', name: 'ThingsBoard Server Application', type: 'CE' };
      for (const client of [c.tenant, c.customer, sysadmin])
        assert.deepEqual((await get(client, '/api/system/info')).body, info);
      await expectError('/api/system/info', 401, 10, 'Authentication failed', c.anon);
      c.sim.setVersion('3.9.1');
      assert.deepEqual((await get(c.tenant, '/api/system/info')).body, {
        version: '3.9.1',
        artifact: 'application',
        name: 'ThingsBoard Server Application',
      });
    });

    it('an unknown path before 3.3.3 (Spring 404 after authentication)', async () => {
      c.sim.setVersion('3.3.2');
      await expectSpring404('/api/system/info');
      await expectError('/api/system/info', 401, 10, 'Authentication failed', c.anon);
    });
  });
});
