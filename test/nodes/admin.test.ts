/**
 * The editor's admin endpoints of tb-connection in the real Node-RED runtime (node-red-node-test-helper; its
 * `helper.request()` is supertest on the admin app) against the simulator over loopback: look-ups with their
 * exact answers from the dataset, caching and coalescing (counted at the simulator), the preview of every
 * node/operation (compared with what the server answers to the same query), the connection test, and every
 * failure: bad parameters, undeployed or misconfigured connections, unreachable, slow and failing servers, 403s.
 * No answer may hold a credential or a token. Permissions are in admin-auth.test.ts.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import sinon from 'sinon';
import type { Response } from 'supertest';
import { BASE_TIME, Simulator, TENANT_API_KEY } from '../../sim';
import { TbInputError } from '../../src/errors';
import tbConnection from '../../src/nodes/tb-connection/index';
import { formatAlarms, formatEntities } from '../../src/protocol/format';
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
} from '../../src/protocol/validate';
import { helper, TENANT, useRuntime } from '../support/runtime';

type Rec = Record<string, unknown>;
type TestFlows = Parameters<typeof helper.load>[1];

const NOW = BASE_TIME + 30 * 60000;
/** The editor's look-ups retry like every read (a refused connection, 429, 502-504): fast here. */
const FAST_RETRIES = { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 };
const CUSTOMER = { username: 'customer@thingsboard.org', password: 'customer' };
const SYSADMIN = { username: 'sysadmin@thingsboard.org', password: 'sysadmin' };
/** A distinctive wrong password: it must never come back in an answer. */
const WRONG_PASSWORD = 'Wr0ng-Pa55word-Xq7!';
const JWT_RE = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./;

const THERMOSTATS = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [
    { type: 'ENTITY_FIELD', key: 'name' },
    { type: 'ENTITY_FIELD', key: 'label' },
  ],
  latestValues: [
    { type: 'TIME_SERIES', key: 'temperature' },
    { type: 'SERVER_ATTRIBUTE', key: 'model' },
  ],
  pageLink: { page: 0, pageSize: 5, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
};
const ALARMS = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  alarmFields: [
    { type: 'ALARM_FIELD', key: 'type' },
    { type: 'ALARM_FIELD', key: 'severity' },
  ],
  pageLink: {
    page: 0,
    pageSize: 4,
    statusList: ['ACTIVE'],
    sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
  },
};

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('tb-connection admin endpoints (runtime + simulator)', function () {
  const sim = useRuntime(
    { now: () => NOW },
    {
      settings: FAST_RETRIES,
      reset: (s) => s.resetRequests(),
      cleanup: (s) => {
        s.faults.clear();
        s.setLatency(0);
        s.setVersion('4.3.1.3');
      },
    },
  );
  // Some tests set runtime settings of their own: none again after each (once the flows are unloaded).
  afterEach(() => helper.settings(FAST_RETRIES as Rec));
  /** Every answer body of this file, checked for secrets at the end. */
  const answers: string[] = [];
  let tenantToken: string;

  before(() => {
    tenantToken = sim.tokensFor('tenant@thingsboard.org').token;
  });
  after(() => {
    // No answer holds a credential or a token.
    assert.ok(answers.length > 50, `${answers.length} answers recorded`);
    for (const text of answers) {
      assert.ok(!JWT_RE.test(text), `a token in: ${text.slice(0, 200)}`);
      for (const secret of [TENANT_API_KEY, WRONG_PASSWORD, '"password"', '"apiKey"', '"refreshToken"', '"token"']) {
        assert.ok(!text.includes(secret), `${secret} in: ${text.slice(0, 200)}`);
      }
    }
  });

  function connection(extra: Rec = {}): Rec {
    return { id: 'c1', type: 'tb-connection', name: 'sim', url: sim.url, authMode: 'password', timeout: 10, ...extra };
  }
  async function load(creds: Rec = TENANT, extra: Rec = {}, others: Rec[] = []): Promise<void> {
    await helper.load([tbConnection], [connection(extra), ...others] as unknown as TestFlows, { c1: creds });
  }

  async function record(r: Response): Promise<Response> {
    answers.push(r.text);
    assert.match(
      String(r.headers['content-type']),
      /^application\/json/,
      `JSON answer (${r.status}: ${r.text.slice(0, 100)})`,
    );
    return r;
  }
  const get = async (path: string): Promise<Response> => record(await helper.request().get(path));
  const post = async (path: string, body?: unknown): Promise<Response> => {
    const req = helper.request().post(path);
    return record(await (body === undefined ? req : req.send(body as object)));
  };
  const preview = (body: unknown, id = 'c1'): Promise<Response> => post(`/tb-connection/${id}/preview`, body);

  /** What the server itself answers to a query, for comparison. */
  async function direct(path: string, body: unknown): Promise<unknown> {
    const res = await fetch(sim.url + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${tenantToken}` },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, `direct ${path}`);
    return res.json();
  }

  function expectError(r: Response, status: number, code: string, message?: RegExp | string, field?: string): void {
    assert.equal(r.status, status, r.text);
    assert.equal(r.body.code, code, r.text);
    if (typeof message === 'string') assert.equal(r.body.message, message);
    else if (message) assert.match(r.body.message, message);
    if (field !== undefined) assert.equal(r.body.field, field);
    else assert.ok(!('field' in r.body), r.text);
  }

  const id = (type: string, name: string): { entityType: string; id: string } => ({
    entityType: type,
    id: sim.data.mustFindByName(type as 'DEVICE', name).id,
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('look-ups', () => {
    it('profiles: device and asset profile names, entity view and edge types, sorted; search = case-insensitive contains', async () => {
      await load();
      const names = async (q: string): Promise<string[]> => {
        const r = await get(`/tb-connection/c1/profiles?${q}`);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(Object.keys(r.body), ['items']);
        return (r.body.items as Array<{ name: string }>).map((i) => {
          assert.deepEqual(Object.keys(i), ['name']);
          return i.name;
        });
      };
      assert.deepEqual(await names('entityType=DEVICE'), ['default', 'meter', 'thermostat']);
      assert.deepEqual(await names('entityType=ASSET'), ['building', 'default', 'floor', 'site']);
      assert.deepEqual(await names('entityType=ENTITY_VIEW'), ['meterView', 'roomView']);
      assert.deepEqual(await names('entityType=EDGE'), ['default', 'gateway']);
      assert.deepEqual(await names('entityType=DEVICE&search=THERM'), ['thermostat']);
      assert.deepEqual(await names('entityType=ASSET&search=e'), ['default', 'site']);
      assert.deepEqual(await names('entityType=ENTITY_VIEW&search=View'), ['meterView', 'roomView']);
      assert.deepEqual(await names('entityType=EDGE&search=nothing'), []);
      assert.equal(sim.countRequests('/api/deviceProfile/names'), 1, 'the search filters the cached list');
      assert.equal(sim.countRequests('/api/assetProfile/names'), 1);
      assert.equal(sim.countRequests('/api/entityView/types'), 1);
      assert.equal(sim.countRequests('/api/edge/types'), 1);
    });

    it('profiles on a server before 3.6.2: the paged profile infos, remembered per connection', async () => {
      sim.setVersion('3.6.1');
      helper.settings({ ...FAST_RETRIES, tbConnectionEditorCacheMs: 0 } as Rec);
      await load();
      for (let i = 0; i < 2; i++) {
        const r = await get('/tb-connection/c1/profiles?entityType=DEVICE');
        assert.deepEqual(r.body, { items: [{ name: 'default' }, { name: 'meter' }, { name: 'thermostat' }] });
      }
      assert.equal(sim.countRequests('/api/deviceProfile/names'), 1, 'tried once');
      assert.equal(sim.countRequests('/api/deviceProfileInfos'), 2);
      const log = sim.requests.entries(10).filter((e) => e.path === '/api/deviceProfileInfos');
      assert.match(log[0].query, /pageSize=100&page=0&sortProperty=name&sortOrder=ASC/);
      const r = await get('/tb-connection/c1/profiles?entityType=ASSET&search=f');
      assert.deepEqual(r.body, { items: [{ name: 'default' }, { name: 'floor' }] });
    });

    it('entities: name contains the search (case-insensitive), sorted by name, {id, name}', async () => {
      await load();
      let r = await get('/tb-connection/c1/entities?entityType=ASSET&search=alpha');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        items: ['Alpha Floor 1', 'Alpha Floor 2', 'Building Alpha'].map((name) => ({ id: id('ASSET', name), name })),
      });
      r = await get('/tb-connection/c1/entities?entityType=DEVICE&search=THERMO%20A-1');
      assert.deepEqual(
        r.body.items.map((i: Rec) => i.name),
        ['Thermo A-101', 'Thermo A-102', 'Thermo A-103'],
      );
      r = await get('/tb-connection/c1/entities?entityType=DEVICE');
      assert.equal(r.body.items.length, 28);
      assert.deepEqual(
        r.body.items.slice(0, 3).map((i: Rec) => i.name),
        ['Gateway 1', 'Meter A-100', 'Meter A-200'],
      );
      r = await get('/tb-connection/c1/entities?entityType=EDGE&search=south');
      assert.deepEqual(r.body, { items: [{ id: id('EDGE', 'Edge South'), name: 'Edge South' }] });
      // %, _ and \ are searched for literally, not as LIKE wildcards
      for (const s of ['%25', '_', '%5C']) {
        r = await get(`/tb-connection/c1/entities?entityType=DEVICE&search=${s}`);
        assert.deepEqual(r.body, { items: [] }, s);
      }
      r = await get('/tb-connection/c1/entities?entityType=DEVICE&search=A_1');
      assert.deepEqual(r.body, { items: [] });
      r = await get('/tb-connection/c1/entities?entityType=CUSTOMER&search=customer');
      assert.deepEqual(
        r.body.items.map((i: Rec) => i.name),
        ['Customer A', 'Customer B', 'Customer C'],
      );
    });

    it("entities: what the connection's user may see (customer user)", async () => {
      await load(CUSTOMER);
      const r = await get('/tb-connection/c1/entities?entityType=DEVICE&search=thermo');
      assert.deepEqual(
        r.body.items.map((i: Rec) => i.name),
        ['Thermo A-101', 'Thermo A-102', 'Thermo A-103', 'Thermo A-201', 'Thermo A-202', 'Thermo A-203'],
      );
    });

    it('entities: at most 50', async () => {
      const big = new Simulator({ now: () => NOW, dataset: { extraDevices: 80 } });
      await big.start();
      try {
        await helper.load([tbConnection], [{ ...connection(), url: big.url }] as unknown as TestFlows, { c1: TENANT });
        let r = await get('/tb-connection/c1/entities?entityType=DEVICE');
        assert.equal(r.body.items.length, 50);
        assert.equal(r.body.items[0].name, 'Bench-000001');
        r = await get('/tb-connection/c1/entities?entityType=DEVICE&search=bench-00007');
        assert.deepEqual(
          r.body.items.map((i: Rec) => i.name),
          [
            'Bench-000070',
            'Bench-000071',
            'Bench-000072',
            'Bench-000073',
            'Bench-000074',
            'Bench-000075',
            'Bench-000076',
            'Bench-000077',
            'Bench-000078',
            'Bench-000079',
          ],
        );
      } finally {
        await helper.unload();
        await big.stop();
      }
    });

    it('entities: ids resolve the names of known entities (unknown ids are left out)', async () => {
      await load();
      const b101 = id('DEVICE', 'Thermo B-101');
      const a101 = id('DEVICE', 'Thermo A-101');
      const unknown = '0b0b0b0b-1111-4222-8333-444455556666';
      let r = await get(
        `/tb-connection/c1/entities?entityType=DEVICE&ids=${b101.id},${unknown}, ${a101.id.toUpperCase()}`,
      );
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        items: [
          { id: a101, name: 'Thermo A-101' },
          { id: b101, name: 'Thermo B-101' },
        ],
      });
      assert.equal(sim.countRequests('/api/entitiesQuery/find'), 1);
      r = await get('/tb-connection/c1/entities?entityType=DEVICE&ids=');
      assert.deepEqual(r.body, { items: [] });
      assert.equal(sim.countRequests('/api/entitiesQuery/find'), 1, 'nothing to resolve, nothing sent');
      r = await get('/tb-connection/c1/entities?entityType=DEVICE&ids=abc');
      expectError(
        r,
        400,
        'TB_INVALID_INPUT',
        'ids must be a comma-separated list of entity ids (UUIDs); "abc" is not one',
        'ids',
      );
      r = await get(`/tb-connection/c1/entities?entityType=DEVICE&ids=${a101.id}&search=x`);
      expectError(r, 400, 'TB_INVALID_INPUT', 'Give either ids (to resolve names) or search, not both', 'ids');
    });

    it('keys: the runtime keys shape for the entities of the chosen profiles, or of the whole type', async () => {
      await load();
      let r = await get('/tb-connection/c1/keys?entityType=DEVICE&profiles=thermostat');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        entityTypes: ['DEVICE'],
        timeseries: ['humidity', 'temperature'],
        attributes: {
          CLIENT_SCOPE: ['fw', 'note', 'serial'],
          SERVER_SCOPE: ['active', 'model', 'note'],
          SHARED_SCOPE: ['config', 'reportingInterval', 'targetTemperature'],
        },
      });
      r = await get('/tb-connection/c1/keys?entityType=DEVICE&profiles=meter,thermostat');
      assert.deepEqual(r.body.timeseries, ['energy', 'humidity', 'power', 'temperature']);
      r = await get('/tb-connection/c1/keys?entityType=DEVICE');
      assert.deepEqual(r.body.timeseries, ['cpu', 'energy', 'humidity', 'power', 'status', 'temperature', 'uptime']);
      r = await get('/tb-connection/c1/keys?entityType=ASSET&profiles=building');
      assert.deepEqual(r.body, {
        entityTypes: ['ASSET'],
        timeseries: [],
        attributes: { SERVER_SCOPE: ['address', 'area', 'floorCount'] },
      });
      r = await get('/tb-connection/c1/keys?entityType=ENTITY_VIEW&profiles=nothing');
      assert.deepEqual(r.body, { entityTypes: [], timeseries: [], attributes: {} });
      r = await get('/tb-connection/c1/keys?entityType=CUSTOMER');
      assert.deepEqual(r.body.attributes, { SERVER_SCOPE: ['modelPrefix', 'tempThreshold'] });
      r = await get('/tb-connection/c1/keys?entityType=CUSTOMER&profiles=a');
      expectError(
        r,
        400,
        'TB_INVALID_INPUT',
        'profiles can only be given with entityType DEVICE, ASSET, ENTITY_VIEW, EDGE (got entityType CUSTOMER)',
        'profiles',
      );
    });

    it("keys: ids give the fixed entities' own keys (a device action's key suggestions)", async () => {
      await load();
      const a101 = id('DEVICE', 'Thermo A-101');
      const meter = id('DEVICE', 'Meter A-100');
      let r = await get(`/tb-connection/c1/keys?entityType=DEVICE&ids=${a101.id}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        entityTypes: ['DEVICE'],
        timeseries: ['humidity', 'temperature'],
        attributes: {
          CLIENT_SCOPE: ['fw', 'note', 'serial'],
          SERVER_SCOPE: ['active', 'model', 'note'],
          SHARED_SCOPE: ['config', 'reportingInterval', 'targetTemperature'],
        },
      });
      // Its own keys, not its profile's: B-101 has no SHARED "config".
      r = await get(`/tb-connection/c1/keys?entityType=DEVICE&ids=${id('DEVICE', 'Thermo B-101').id}`);
      assert.deepEqual(r.body.attributes.SHARED_SCOPE, ['reportingInterval', 'targetTemperature']);
      r = await get(`/tb-connection/c1/keys?entityType=DEVICE&ids=${meter.id},${a101.id}`);
      assert.deepEqual(r.body.timeseries, ['energy', 'humidity', 'power', 'temperature']);
      r = await get(`/tb-connection/c1/keys?entityType=ASSET&ids=${id('ASSET', 'Building Alpha').id}`);
      assert.deepEqual(r.body, {
        entityTypes: ['ASSET'],
        timeseries: [],
        attributes: { SERVER_SCOPE: ['address', 'area', 'floorCount'] },
      });
      r = await get('/tb-connection/c1/keys?entityType=DEVICE&ids=');
      assert.deepEqual(r.body, { entityTypes: [], timeseries: [], attributes: {} });
      expectError(
        await get('/tb-connection/c1/keys?entityType=DEVICE&ids=abc'),
        400,
        'TB_INVALID_INPUT',
        'ids must be a comma-separated list of entity ids (UUIDs); "abc" is not one',
        'ids',
      );
      expectError(
        await get(`/tb-connection/c1/keys?entityType=DEVICE&ids=${a101.id}&profiles=thermostat`),
        400,
        'TB_INVALID_INPUT',
        "Give either ids (the entities' own keys) or profiles, not both",
        'ids',
      );
    });

    it('keys: the same answer from a server with only the v1 key endpoint', async () => {
      await load();
      const v2 = (await get('/tb-connection/c1/keys?entityType=DEVICE&profiles=thermostat')).body;
      await helper.unload();
      sim.setVersion('4.2.1');
      await load();
      const v1 = (await get('/tb-connection/c1/keys?entityType=DEVICE&profiles=thermostat')).body;
      assert.deepEqual(v1, v2);
      assert.ok(sim.countRequests('/api/entitiesQuery/find/keys') >= 2);
    });

    it("alarm types: the tenant's types, search = contains; a customer user gets the tenant's types too", async () => {
      const all = ['Device Offline', 'High Temperature', 'Low Humidity', 'Maintenance Due', 'Power Failure'];
      await load();
      let r = await get('/tb-connection/c1/alarm-types');
      assert.deepEqual(r.body, { items: all });
      r = await get('/tb-connection/c1/alarm-types?search=TEMP');
      assert.deepEqual(r.body, { items: ['High Temperature'] });
      r = await get('/tb-connection/c1/alarm-types?search=%25');
      assert.deepEqual(r.body, { items: [] });
      const log = sim.requests.entries(5).filter((e) => e.path === '/api/alarm/types');
      assert.match(log[0].query, /^pageSize=100&page=0$/);
      await helper.unload();
      await load(CUSTOMER);
      r = await get('/tb-connection/c1/alarm-types');
      assert.deepEqual(r.body, { items: all });
    });

    it('notification targets, templates and delivery methods: by name, search = contains, cached', async () => {
      await load();
      let r = await get('/tb-connection/c1/notification-targets');
      assert.deepEqual(
        r.body.items.map((t: Rec) => [t.name, t.type, (t.methods as string[]).join(',')]),
        [
          ['All users', 'PLATFORM_USERS', 'WEB,EMAIL,SMS,MOBILE_APP'],
          ['Customer A users', 'PLATFORM_USERS', 'WEB,EMAIL,SMS,MOBILE_APP'],
          ['Night shift', 'PLATFORM_USERS', 'WEB,EMAIL,SMS,MOBILE_APP'],
          ['Ops channel', 'MICROSOFT_TEAMS', 'MICROSOFT_TEAMS'],
          ['Tenant administrators', 'PLATFORM_USERS', 'WEB,EMAIL,SMS,MOBILE_APP'],
        ],
      );
      assert.equal(r.body.items[0].id, sim.notifications.findTarget('All users')!.id);
      r = await get('/tb-connection/c1/notification-targets?search=SHIFT');
      assert.deepEqual(
        r.body.items.map((t: Rec) => t.name),
        ['Night shift'],
      );
      r = await get('/tb-connection/c1/notification-templates?search=crit');
      assert.deepEqual(r.body, {
        items: [
          {
            id: sim.notifications.findTemplate('Critical alarm')!.id,
            name: 'Critical alarm',
            methods: ['WEB', 'EMAIL'],
          },
        ],
      });
      r = await get('/tb-connection/c1/delivery-methods');
      assert.deepEqual(r.body, { items: ['WEB', 'EMAIL', 'MICROSOFT_TEAMS'] });
      await get('/tb-connection/c1/delivery-methods');
      assert.equal(sim.countRequests('/api/notification/deliveryMethods'), 1, 'cached');
      const log = sim.requests.entries(20).filter((e) => e.path === '/api/notification/targets');
      assert.match(log[0].query, /^pageSize=100&page=0&sortProperty=name&sortOrder=ASC$/);
    });

    it('notification look-ups for a customer user: 403 as TB_PERMISSION; before 3.5: no notification center', async () => {
      await load(CUSTOMER);
      expectError(await get('/tb-connection/c1/notification-targets'), 403, 'TB_PERMISSION', /HTTP 403/);
      await helper.unload();
      sim.setVersion('3.4.4');
      await load();
      expectError(
        await get('/tb-connection/c1/notification-templates'),
        404,
        'TB_NOT_FOUND',
        /no notification center \(it came in ThingsBoard 3.5\)/,
      );
    });

    it("alarm types on a server before 3.6: the server's 404 as TB_NOT_FOUND", async () => {
      sim.setVersion('3.5.1');
      await load();
      expectError(
        await get('/tb-connection/c1/alarm-types'),
        404,
        'TB_NOT_FOUND',
        /ThingsBoard answered HTTP 404.*\/api\/alarm\/types/,
      );
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('preview', () => {
    it('tb-entity-query find: the first page, flat by default, with the page info; exactly what the server answers', async () => {
      await load();
      const r = await preview({ node: 'tb-entity-query', operation: 'find', query: THERMOSTATS });
      assert.equal(r.status, 200, r.text);
      assert.equal(sim.countRequests('/api/entitiesQuery/find'), 1, 'one page only');
      const server = (await direct('/api/entitiesQuery/find', prepareEntityDataQuery(THERMOSTATS))) as {
        data: never[];
      };
      assert.deepEqual(r.body, {
        payload: formatEntities(server.data, 'flat'),
        page: { page: 0, pageSize: 5, totalPages: 4, totalElements: 20, hasNext: true },
      });
      assert.deepEqual(
        { name: r.body.payload[0].name, temperature: r.body.payload[0].temperature, model: r.body.payload[0].model },
        { name: 'Thermo A-101', temperature: 21.5, model: 'TH-100' },
      );
    });

    it('raw format, query as JSON text, operation defaulted', async () => {
      await load();
      const r = await preview({ node: 'tb-entity-query', query: JSON.stringify(THERMOSTATS), format: 'raw' });
      const server = (await direct('/api/entitiesQuery/find', prepareEntityDataQuery(THERMOSTATS))) as {
        data: unknown[];
      };
      assert.deepEqual(r.body.payload, server.data);
      assert.equal(r.body.page.totalElements, 20);
    });

    it('tb-entity-query keys, tb-entity-count, tb-alarm-query find and count', async () => {
      await load();
      let r = await preview({
        node: 'tb-entity-query',
        operation: 'keys',
        query: { entityFilter: { type: 'deviceType', deviceTypes: ['meter'] } },
      });
      assert.deepEqual(r.body, {
        payload: {
          entityTypes: ['DEVICE'],
          timeseries: ['energy', 'power'],
          attributes: { CLIENT_SCOPE: ['fw', 'serial'], SERVER_SCOPE: ['active', 'model'] },
        },
      });
      r = await preview({
        node: 'tb-entity-count',
        query: { entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } },
      });
      assert.deepEqual(r.body, { payload: 20 });
      r = await preview({ node: 'tb-entity-count', operation: 'count', query: THERMOSTATS });
      assert.deepEqual(r.body, { payload: 20 });
      r = await preview({ node: 'tb-alarm-query', operation: 'find', query: ALARMS });
      const alarms = (await direct('/api/alarmsQuery/find', prepareAlarmDataQuery(ALARMS))) as {
        data: never[];
        totalElements: number;
      };
      assert.deepEqual(r.body, {
        payload: formatAlarms(alarms.data, 'flat'),
        page: {
          page: 0,
          pageSize: 4,
          totalPages: Math.ceil(alarms.totalElements / 4),
          totalElements: alarms.totalElements,
          hasNext: alarms.totalElements > 4,
        },
      });
      assert.deepEqual(
        r.body.payload.map((a: Rec) => a.originatorName),
        ['Thermo A-101', 'Thermo A-102', 'Thermo G-201', 'Thermo B-101'],
      );
      r = await preview({ node: 'tb-alarm-query', operation: 'count', query: ALARMS });
      assert.deepEqual(r.body, { payload: await direct('/api/alarmsQuery/count', prepareAlarmCountQuery(ALARMS)) });
      assert.equal(typeof r.body.payload, 'number');
    });

    it('tb-subscribe: every kind runs once over REST (find or count), never subscribes', async () => {
      await load();
      const live = { ...THERMOSTATS, pageLink: { ...THERMOSTATS.pageLink, dynamic: true } };
      let r = await preview({ node: 'tb-subscribe', operation: 'entityData', query: live });
      const server = (await direct('/api/entitiesQuery/find', prepareEntityDataQuery(live))) as { data: never[] };
      assert.deepEqual(r.body.payload, formatEntities(server.data, 'flat'));
      assert.equal(r.body.page.totalElements, 20);
      r = await preview({ node: 'tb-subscribe', operation: 'entityCount', query: live });
      assert.deepEqual(r.body, { payload: await direct('/api/entitiesQuery/count', prepareEntityCountQuery(live)) });
      r = await preview({ node: 'tb-subscribe', operation: 'alarmData', query: ALARMS, format: 'raw' });
      assert.deepEqual(
        r.body.payload,
        ((await direct('/api/alarmsQuery/find', prepareAlarmDataQuery(ALARMS))) as { data: unknown[] }).data,
      );
      r = await preview({ node: 'tb-subscribe', operation: 'alarmCount', query: { statusList: ['ACTIVE'] } });
      assert.deepEqual(r.body, { payload: 10 });
      assert.equal(sim.ws.connections().total, 0, 'no WebSocket');
      // each preview once, plus the direct comparisons
      assert.equal(sim.countRequests('/api/entitiesQuery/find'), 2);
      assert.equal(sim.countRequests('/api/entitiesQuery/count'), 2);
      assert.equal(sim.countRequests('/api/alarmsQuery/find'), 2);
      assert.equal(sim.countRequests('/api/alarmsQuery/count'), 1);
    });

    it("tb-trigger: its query's entities and their number (the dialog's sentence), over REST, never subscribing", async () => {
      await load();
      const live = { ...THERMOSTATS, pageLink: { ...THERMOSTATS.pageLink, dynamic: true } };
      let r = await preview({ node: 'tb-trigger', operation: 'entityCount', query: JSON.stringify(live) });
      assert.deepEqual(r.body, { payload: 20 });
      r = await preview({ node: 'tb-trigger', operation: 'entityData', query: live });
      assert.equal(r.body.page.totalElements, 20);
      expectError(
        await preview({ node: 'tb-trigger', operation: 'alarmData', query: live }),
        400,
        'TB_INVALID_INPUT',
        'operation must be one of entityData, entityCount (got "alarmData")',
        'operation',
      );
      assert.equal(sim.ws.connections().total, 0, 'no WebSocket');
    });

    it("an invalid query: 400 with the runtime's field and message, nothing sent", async () => {
      await load();
      const bad = { entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] }, pageLink: { pageSize: 0 } };
      const runtime = (() => {
        try {
          prepareEntityDataQuery(bad, 'query');
        } catch (err) {
          return err as TbInputError;
        }
        throw new Error('expected a validation error');
      })();
      let r = await preview({ node: 'tb-entity-query', query: bad });
      expectError(r, 400, 'TB_INVALID_INPUT', runtime.message, 'query.pageLink.pageSize');
      r = await preview({
        node: 'tb-subscribe',
        operation: 'alarmData',
        query: { entityFilter: { type: 'stateEntity' } },
      });
      expectError(r, 400, 'TB_INVALID_INPUT', /^query\.entityFilter\.type must be one of/, 'query.entityFilter.type');
      r = await preview({ node: 'tb-entity-count', query: '{"entityFilter": ' });
      expectError(r, 400, 'TB_INVALID_INPUT', /^query is not valid JSON/, 'query');
      r = await preview({ node: 'tb-entity-count' });
      expectError(r, 400, 'TB_INVALID_INPUT', /^query must be an object/, 'query');
      r = await preview({ node: 'tb-entity-count', query: '  ' });
      expectError(r, 400, 'TB_INVALID_INPUT', /^query must be an object/, 'query');
      // what the server would fail on: a sort key its Validator refuses, a CURRENT_DEVICE dynamic value. Every
      // preview is a REST call, a tb-subscribe one too, so the REST rule applies there as well.
      const F = 'query.keyFilters[0].predicate.value.dynamicValue.sourceType';
      const device = {
        entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
        keyFilters: [
          {
            key: { type: 'TIME_SERIES', key: 'temperature' },
            predicate: {
              type: 'NUMERIC',
              operation: 'GREATER',
              value: { defaultValue: 20, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'limit' } },
            },
          },
        ],
      };
      r = await preview({
        node: 'tb-entity-query',
        query: {
          entityFilter: device.entityFilter,
          pageLink: {
            pageSize: 5,
            sortOrder: { key: { type: 'ENTITY_FIELD', key: 'created(Time)' }, direction: 'ASC' },
          },
        },
      });
      expectError(
        r,
        400,
        'TB_INVALID_INPUT',
        /^query\.pageLink\.sortOrder\.key\.key must be made of letters, digits, "_" and "-" only/,
        'query.pageLink.sortOrder.key.key',
      );
      r = await preview({ node: 'tb-entity-query', query: device });
      expectError(r, 400, 'TB_INVALID_INPUT', /in an entity data query sent over REST \(got "CURRENT_DEVICE"/, F);
      r = await preview({ node: 'tb-subscribe', operation: 'entityData', query: device });
      expectError(r, 400, 'TB_INVALID_INPUT', /in an entity data query sent over REST \(got "CURRENT_DEVICE"/, F);
      r = await preview({ node: 'tb-entity-count', query: device });
      expectError(r, 400, 'TB_INVALID_INPUT', /which a REST count or alarm query never resolves/, F);
      r = await preview({ node: 'tb-alarm-query', operation: 'find', query: device });
      expectError(r, 400, 'TB_INVALID_INPUT', /which a REST count or alarm query never resolves/, F);
      assert.equal(sim.requests.entries(100).length, 0, 'nothing reached the server');
    });

    it('unknown node, operation or format: 400 naming the field and the allowed values', async () => {
      await load();
      expectError(
        await preview({ node: 'tb-entity-find', query: THERMOSTATS }),
        400,
        'TB_INVALID_INPUT',
        'node must be one of tb-entity-query, tb-entity-count, tb-alarm-query, tb-subscribe, tb-trigger (got "tb-entity-find")',
        'node',
      );
      expectError(
        await preview({ query: THERMOSTATS }),
        400,
        'TB_INVALID_INPUT',
        /^node must be one of .* \(got nothing\)$/,
        'node',
      );
      expectError(
        await preview({ node: 'tb-alarm-query', operation: 'keys', query: THERMOSTATS }),
        400,
        'TB_INVALID_INPUT',
        'operation must be one of find, count (got "keys")',
        'operation',
      );
      expectError(
        await preview({ node: 'tb-subscribe', operation: 'alarmStatus', query: THERMOSTATS }),
        400,
        'TB_INVALID_INPUT',
        'operation must be one of entityData, entityCount, alarmData, alarmCount (got "alarmStatus")',
        'operation',
      );
      expectError(
        await preview({ node: 'tb-entity-query', query: THERMOSTATS, format: 'csv' }),
        400,
        'TB_INVALID_INPUT',
        'format must be one of flat, raw (got "csv")',
        'format',
      );
      expectError(await preview([1, 2]), 400, 'TB_INVALID_INPUT', /^The request body must be a JSON object/, 'body');
      const r = await record(
        await helper
          .request()
          .post('/tb-connection/c1/preview')
          .set('Content-Type', 'application/json')
          .send('{"node": '),
      );
      expectError(r, 400, 'TB_INVALID_INPUT', 'The request body is not valid JSON', 'body');
      assert.equal(sim.requests.entries(100).length, 0);
    });

    it('nothing for the conditions: how many the filter selects without them (one count more, only then)', async () => {
      await load();
      const tooHot = [
        {
          key: { type: 'TIME_SERIES', key: 'temperature' },
          valueType: 'NUMERIC',
          predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 1000 } },
        },
      ];
      const devices = { count: 20, entityType: 'DEVICE' };
      let r = await preview({ node: 'tb-entity-query', query: { ...THERMOSTATS, keyFilters: tooHot } });
      assert.deepEqual(r.body, {
        payload: [],
        page: { page: 0, pageSize: 5, totalPages: 0, totalElements: 0, hasNext: false },
        withoutConditions: devices,
      });
      assert.deepEqual(
        [sim.countRequests('/api/entitiesQuery/find'), sim.countRequests('/api/entitiesQuery/count')],
        [1, 1],
      );
      r = await preview({
        node: 'tb-entity-count',
        query: { entityFilter: THERMOSTATS.entityFilter, keyFilters: tooHot },
      });
      assert.deepEqual(r.body, { payload: 0, withoutConditions: devices });
      // A filter of several types: the count alone.
      const mixed = { type: 'entityList', entityType: 'DEVICE', entityList: [id('DEVICE', 'Thermo A-101').id] };
      r = await preview({
        node: 'tb-subscribe',
        operation: 'entityCount',
        query: {
          entityFilter: {
            type: 'relationsQuery',
            rootEntity: id('ASSET', 'Building Alpha'),
            direction: 'FROM',
            maxLevel: 2,
            filters: [],
          },
          keyFilters: tooHot,
        },
      });
      assert.equal(r.body.payload, 0);
      assert.equal(r.body.withoutConditions.entityType, undefined);
      assert.ok(r.body.withoutConditions.count > 0, r.text);
      // Alarms: the same alarm query counted without its conditions.
      const alarms = { ...ALARMS, keyFilters: tooHot };
      const bare = (await direct('/api/alarmsQuery/count', prepareAlarmCountQuery(ALARMS))) as number;
      assert.ok(bare > 0);
      r = await preview({ node: 'tb-alarm-query', operation: 'find', query: alarms });
      assert.deepEqual([r.body.payload, r.body.withoutConditions], [[], { count: bare, entityType: 'ALARM' }]);
      r = await preview({ node: 'tb-alarm-query', operation: 'count', query: alarms });
      assert.deepEqual(r.body, { payload: 0, withoutConditions: { count: bare, entityType: 'ALARM' } });
      // Nothing without conditions, something with them, or a page past the end: no second count.
      sim.resetRequests();
      r = await preview({ node: 'tb-entity-count', query: { entityFilter: mixed } });
      assert.deepEqual(r.body, { payload: 1 });
      r = await preview({
        node: 'tb-entity-query',
        query: { entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'Nothing like this' } },
      });
      assert.deepEqual([r.body.payload, r.body.withoutConditions], [[], undefined]);
      r = await preview({
        node: 'tb-entity-count',
        query: {
          entityFilter: THERMOSTATS.entityFilter,
          keyFilters: [{ ...tooHot[0], predicate: { ...tooHot[0].predicate, operation: 'LESS' } }],
        },
      });
      assert.deepEqual(Object.keys(r.body), ['payload']);
      assert.ok(r.body.payload > 0, r.text);
      r = await preview({
        node: 'tb-entity-query',
        query: {
          ...THERMOSTATS,
          keyFilters: [{ ...tooHot[0], predicate: { ...tooHot[0].predicate, operation: 'LESS' } }],
          pageLink: { page: 9, pageSize: 5 },
        },
      });
      assert.deepEqual(
        [r.body.payload, r.body.page.totalElements > 0, r.body.withoutConditions],
        [[], true, undefined],
      );
      assert.equal(sim.countRequests('/api/entitiesQuery/count'), 2, 'the two count previews only');
      // The second count failing leaves the answer (nothing) as it is.
      const fault = sim.faults.add({ path: '/api/entitiesQuery/count', status: 500, times: 1 });
      r = await preview({ node: 'tb-entity-query', query: { ...THERMOSTATS, keyFilters: tooHot } });
      sim.faults.remove(fault);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual([r.body.payload, r.body.withoutConditions], [[], undefined]);
    });

    it('is never cached', async () => {
      await load();
      await preview({ node: 'tb-entity-count', query: THERMOSTATS });
      await preview({ node: 'tb-entity-count', query: THERMOSTATS });
      assert.equal(sim.countRequests('/api/entitiesQuery/count'), 2);
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('connection test', () => {
    it('ok: the user, its authority and the server version (HTTP 200)', async () => {
      await load();
      const r = await post('/tb-connection/c1/test');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        ok: true,
        user: 'tenant@thingsboard.org',
        authority: 'TENANT_ADMIN',
        serverVersion: '4.3.1.3',
      });
      await helper.unload();
      await load(CUSTOMER);
      assert.deepEqual((await post('/tb-connection/c1/test')).body, {
        ok: true,
        user: 'customer@thingsboard.org',
        authority: 'CUSTOMER_USER',
        serverVersion: '4.3.1.3',
      });
      await helper.unload();
      await load({ apiKey: TENANT_API_KEY }, { authMode: 'apiKey' });
      assert.deepEqual((await post('/tb-connection/c1/test')).body, {
        ok: true,
        user: 'tenant@thingsboard.org',
        authority: 'TENANT_ADMIN',
        serverVersion: '4.3.1.3',
      });
      await helper.unload();
      await load({ token: tenantToken }, { authMode: 'token' });
      assert.deepEqual((await post('/tb-connection/c1/test')).body.ok, true);
    });

    it('the version is optional: null on a server without /api/system/info, or when it fails', async () => {
      sim.setVersion('3.3.2');
      await load();
      assert.deepEqual((await post('/tb-connection/c1/test')).body, {
        ok: true,
        user: 'tenant@thingsboard.org',
        authority: 'TENANT_ADMIN',
        serverVersion: null,
      });
      sim.setVersion('4.3.1.3');
      // (a 503 would be retried: a 500 is not)
      sim.faults.add({ path: '/api/system/info', status: 500 });
      assert.equal((await post('/tb-connection/c1/test')).body.serverVersion, null);
      assert.equal((await post('/tb-connection/c1/test')).body.serverVersion, '4.3.1.3');
    });

    it('not ok: refused credentials, 2FA, an unreachable server (still HTTP 200)', async () => {
      await load({ username: 'tenant@thingsboard.org', password: WRONG_PASSWORD });
      let r = await post('/tb-connection/c1/test');
      assert.equal(r.status, 200);
      assert.equal(r.body.ok, false);
      assert.equal(r.body.code, 'TB_AUTH_FAILED');
      assert.match(r.body.message, /refused the username\/password \(HTTP 401: Invalid username or password\)/);
      assert.deepEqual(Object.keys(r.body), ['ok', 'code', 'message']);
      await helper.unload();
      await load({ username: 'mfa@thingsboard.org', password: 'mfa' });
      r = await post('/tb-connection/c1/test');
      assert.deepEqual([r.status, r.body.ok, r.body.code], [200, false, 'TB_2FA_REQUIRED']);
      await helper.unload();
      await load(TENANT, { url: `http://127.0.0.1:${await deadPort()}` });
      r = await post('/tb-connection/c1/test');
      assert.deepEqual([r.status, r.body.ok, r.body.code], [200, false, 'TB_UNREACHABLE']);
      assert.match(
        r.body.message,
        /^Cannot reach ThingsBoard at http:\/\/127\.0\.0\.1:\d+ \(POST \/api\/auth\/login\): ECONNREFUSED$/,
      );
    });

    it('is never cached', async () => {
      await load();
      await post('/tb-connection/c1/test');
      await post('/tb-connection/c1/test');
      assert.equal(sim.countRequests('/api/auth/user'), 2);
      assert.equal(sim.countRequests('/api/auth/login'), 1, "the session is the connection's own");
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('cache', () => {
    it('a second identical look-up within the TTL sends nothing; another look-up does', async () => {
      await load();
      const paths = [
        '/tb-connection/c1/entities?entityType=DEVICE&search=thermo',
        '/tb-connection/c1/keys?entityType=DEVICE&profiles=thermostat',
        '/tb-connection/c1/alarm-types?search=high',
        '/tb-connection/c1/profiles?entityType=EDGE',
      ];
      for (const p of paths) assert.equal((await get(p)).status, 200);
      const sent = sim.requests.entries(100).length;
      for (const p of paths) assert.equal((await get(p)).status, 200);
      assert.equal(
        (await get('/tb-connection/c1/keys?entityType=DEVICE&profiles=thermostat,')).status,
        200,
        'the same profiles',
      );
      assert.equal(
        (await get('/tb-connection/c1/entities?entityType=DEVICE&search=THERMO')).status,
        200,
        'the search is case-insensitive',
      );
      assert.equal(sim.requests.entries(100).length, sent, 'all from the cache');
      await get('/tb-connection/c1/entities?entityType=DEVICE&search=thermo%20a');
      await get('/tb-connection/c1/entities?entityType=ASSET&search=thermo');
      assert.equal(sim.requests.entries(100).length, sent + 2);
    });

    it('answers expire after tbConnectionEditorCacheMs (30 s by default)', async () => {
      const clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
      try {
        await load();
        await get('/tb-connection/c1/alarm-types');
        clock.tick(29000);
        await get('/tb-connection/c1/alarm-types');
        assert.equal(sim.countRequests('/api/alarm/types'), 1);
        clock.tick(2000);
        await get('/tb-connection/c1/alarm-types');
        assert.equal(sim.countRequests('/api/alarm/types'), 2);
      } finally {
        clock.restore();
      }
      await helper.unload();
      helper.settings({ ...FAST_RETRIES, tbConnectionEditorCacheMs: 0 } as Rec);
      await load();
      await get('/tb-connection/c1/alarm-types');
      await get('/tb-connection/c1/alarm-types');
      assert.equal(sim.countRequests('/api/alarm/types'), 4, 'setting 0: no reuse');
    });

    it('concurrent identical look-ups share one request', async () => {
      await load();
      await post('/tb-connection/c1/test'); // log in first: only the look-ups are counted below
      sim.resetRequests();
      sim.setLatency(100);
      const rs = await Promise.all(
        Array.from({ length: 6 }, () => get('/tb-connection/c1/entities?entityType=DEVICE&search=meter')),
      );
      for (const r of rs) assert.equal(r.body.items.length, 6);
      assert.equal(sim.countRequests('/api/entitiesQuery/find'), 1);
      await Promise.all(['a', 'b', 'c'].map((s) => get(`/tb-connection/c1/entities?entityType=DEVICE&search=${s}`)));
      assert.equal(sim.countRequests('/api/entitiesQuery/find'), 4);
    });

    it('a failed look-up is not kept', async () => {
      await load();
      sim.faults.add({ path: '/api/edge/types', status: 500 });
      expectError(
        await get('/tb-connection/c1/profiles?entityType=EDGE'),
        502,
        'TB_SERVER_ERROR',
        /ThingsBoard answered HTTP 500, errorCode 2: Internal server error \(GET \/api\/edge\/types\)/,
      );
      assert.deepEqual((await get('/tb-connection/c1/profiles?entityType=EDGE')).body, {
        items: [{ name: 'default' }, { name: 'gateway' }],
      });
      assert.equal(sim.countRequests('/api/edge/types'), 2);
    });

    it('a redeployed connection starts with an empty cache', async () => {
      await load();
      await get('/tb-connection/c1/profiles?entityType=DEVICE');
      await get('/tb-connection/c1/profiles?entityType=DEVICE');
      assert.equal(sim.countRequests('/api/deviceProfile/names'), 1);
      await helper.setFlows([connection({ name: 'renamed' })] as unknown as TestFlows, 'nodes', { c1: TENANT });
      await get('/tb-connection/c1/profiles?entityType=DEVICE');
      assert.equal(sim.countRequests('/api/deviceProfile/names'), 2);
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('errors', () => {
    const endpoints: Array<[string, string, unknown?]> = [
      ['get', 'profiles?entityType=DEVICE'],
      ['get', 'entities?entityType=DEVICE&search=x'],
      ['get', 'keys?entityType=DEVICE'],
      ['get', 'alarm-types'],
      ['post', 'preview', { node: 'tb-entity-count', query: THERMOSTATS }],
      ['post', 'test'],
    ];
    const each = async (connId: string, check: (r: Response, what: string) => void): Promise<void> => {
      for (const [method, path, body] of endpoints) {
        const url = `/tb-connection/${connId}/${path}`;
        check(method === 'get' ? await get(url) : await post(url, body), `${method} ${path}`);
      }
    };

    it('an unknown id, or the id of another node: 404 TB_NOT_DEPLOYED on every endpoint', async () => {
      await load(TENANT, {}, [{ id: 'h1', type: 'helper' }]);
      for (const connId of ['nope', 'h1']) {
        await each(connId, (r) =>
          expectError(
            r,
            404,
            'TB_NOT_DEPLOYED',
            new RegExp(`^No deployed ThingsBoard connection has the id "${connId}": deploy the connection first`),
          ),
        );
      }
      assert.equal(sim.requests.entries(100).length, 0);
    });

    it('a connection with a configuration error: 400 with its TB_CONFIG message on every endpoint', async () => {
      await load(TENANT, { url: 'ftp://example.org' });
      await each('c1', (r) =>
        expectError(
          r,
          400,
          'TB_CONFIG',
          'url must be the http(s) address of the ThingsBoard platform, e.g. http://localhost:8080 (got "ftp://example.org")',
        ),
      );
      await helper.unload();
      await load({ username: 'tenant@thingsboard.org' });
      await each('c1', (r) =>
        expectError(
          r,
          400,
          'TB_CONFIG',
          'The connection needs a username and a password (authentication mode "password")',
        ),
      );
    });

    it('an unreachable server: 502 TB_UNREACHABLE (the test answers ok:false)', async () => {
      await load(TENANT, { url: `http://127.0.0.1:${await deadPort()}` });
      await each('c1', (r, what) => {
        if (what === 'post test') assert.deepEqual([r.status, r.body.ok, r.body.code], [200, false, 'TB_UNREACHABLE']);
        else
          expectError(
            r,
            502,
            'TB_UNREACHABLE',
            /^Cannot reach ThingsBoard at http:\/\/127\.0\.0\.1:\d+ \(POST \/api\/auth\/login\)/,
          );
      });
    });

    it('a stopped simulator: 502 TB_UNREACHABLE', async () => {
      const gone = new Simulator({ now: () => NOW });
      await gone.start();
      await helper.load([tbConnection], [{ ...connection(), url: gone.url }] as unknown as TestFlows, { c1: TENANT });
      assert.equal((await get('/tb-connection/c1/alarm-types')).status, 200);
      await gone.stop();
      expectError(
        await get('/tb-connection/c1/profiles?entityType=ASSET'),
        502,
        'TB_UNREACHABLE',
        /Cannot reach ThingsBoard/,
      );
    });

    it('a server that does not answer in time: 502 TB_TIMEOUT', async () => {
      await load(TENANT, { timeout: 0.3 });
      await post('/tb-connection/c1/test');
      sim.faults.add({ path: '/api/entitiesQuery/find', delayMs: 2000 });
      expectError(
        await get('/tb-connection/c1/entities?entityType=DEVICE'),
        502,
        'TB_TIMEOUT',
        /^No answer from ThingsBoard at .* in time \(POST \/api\/entitiesQuery\/find\)/,
      );
    });

    it("the server's errors: 5xx → 502, its 4xx kept (400, 404, 429), an unreadable answer → 502", async () => {
      helper.settings({ ...FAST_RETRIES, tbConnectionRetryCount: 0 } as Rec);
      await load();
      sim.faults.add({ path: '/api/entitiesQuery/count', status: 503 });
      expectError(await preview({ node: 'tb-entity-count', query: THERMOSTATS }), 502, 'TB_UNAVAILABLE', /HTTP 503/);
      sim.faults.add({ path: '/api/entitiesQuery/count', status: 500 });
      expectError(await preview({ node: 'tb-entity-count', query: THERMOSTATS }), 502, 'TB_SERVER_ERROR', /HTTP 500/);
      sim.faults.add({
        path: '/api/entitiesQuery/find',
        status: 400,
        body: { status: 400, message: 'Invalid UUID string: x', errorCode: 31, timestamp: 0 },
      });
      expectError(
        await preview({ node: 'tb-entity-query', query: THERMOSTATS }),
        400,
        'TB_BAD_REQUEST',
        /HTTP 400, errorCode 31: Invalid UUID string: x/,
      );
      sim.faults.add({ path: '/api/alarm/types', status: 429 });
      expectError(await get('/tb-connection/c1/alarm-types'), 429, 'TB_RATE_LIMITED', /HTTP 429, errorCode 33/);
      sim.faults.add({ path: '/api/deviceProfile/names', malformed: true });
      expectError(await get('/tb-connection/c1/profiles?entityType=DEVICE'), 502, 'TB_BAD_RESPONSE', /not JSON/);
      sim.faults.add({ path: '/api/edge/types', status: 200, body: { no: 'list' } });
      expectError(
        await get('/tb-connection/c1/profiles?entityType=EDGE'),
        502,
        'TB_BAD_RESPONSE',
        /something that is not a list/,
      );
    });

    it('a 502, 503 or 504 on the way is retried: the look-up and the preview get their answer', async () => {
      await load();
      for (const status of [502, 503, 504]) {
        sim.faults.add({ path: '/api/entitiesQuery/count', status });
        sim.faults.add({ path: '/api/alarm/types', status });
      }
      const r = await preview({ node: 'tb-entity-count', query: THERMOSTATS });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal((await get('/tb-connection/c1/alarm-types')).status, 200);
      assert.equal(sim.countRequests('/api/entitiesQuery/count'), 4, 'three faults, then the answer');
    });

    it('403 from the server (a sysadmin connection): 403 TB_PERMISSION', async () => {
      await load(SYSADMIN);
      for (const path of ['profiles?entityType=DEVICE', 'alarm-types', 'keys?entityType=DEVICE']) {
        expectError(
          await get(`/tb-connection/c1/${path}`),
          403,
          'TB_PERMISSION',
          /HTTP 403, errorCode 20: You don't have permission to perform this operation!/,
        );
      }
      expectError(
        await preview({ node: 'tb-alarm-query', query: ALARMS }),
        403,
        'TB_PERMISSION',
        /\/api\/alarmsQuery\/find/,
      );
      assert.deepEqual((await post('/tb-connection/c1/test')).body, {
        ok: true,
        user: 'sysadmin@thingsboard.org',
        authority: 'SYS_ADMIN',
        serverVersion: '4.3.1.3',
      });
    });

    it('refused credentials on a look-up: 502 TB_AUTH_FAILED (never 401, which the editor reads as its own session)', async () => {
      await load({ username: 'tenant@thingsboard.org', password: WRONG_PASSWORD });
      expectError(await get('/tb-connection/c1/alarm-types'), 502, 'TB_AUTH_FAILED', /refused the username\/password/);
      await helper.unload();
      await load({ apiKey: 'tb_not-a-key' }, { authMode: 'apiKey' });
      expectError(await get('/tb-connection/c1/alarm-types'), 502, 'TB_AUTH_FAILED', /refused the API key/);
    });

    it('bad query parameters: 400 naming the parameter and the allowed values; nothing sent', async () => {
      await load();
      expectError(
        await get('/tb-connection/c1/profiles'),
        400,
        'TB_INVALID_INPUT',
        'entityType must be one of DEVICE, ASSET, ENTITY_VIEW, EDGE (got nothing)',
        'entityType',
      );
      expectError(
        await get('/tb-connection/c1/profiles?entityType=device'),
        400,
        'TB_INVALID_INPUT',
        'entityType must be one of DEVICE, ASSET, ENTITY_VIEW, EDGE (got "device")',
        'entityType',
      );
      expectError(
        await get('/tb-connection/c1/keys?entityType=ALARM'),
        400,
        'TB_INVALID_INPUT',
        /^entityType must be one of DEVICE, ASSET, ENTITY_VIEW, CUSTOMER, USER, DASHBOARD, TENANT, EDGE, .* \(got "ALARM"\)$/,
        'entityType',
      );
      expectError(
        await get('/tb-connection/c1/entities?entityType=RULE_NODE'),
        400,
        'TB_INVALID_INPUT',
        /^entityType must be one of /,
        'entityType',
      );
      expectError(
        await get('/tb-connection/c1/entities?entityType=DEVICE&search=a&search=b'),
        400,
        'TB_INVALID_INPUT',
        'search must be given once, as text',
        'search',
      );
      expectError(
        await get(`/tb-connection/c1/alarm-types?search=${'x'.repeat(201)}`),
        400,
        'TB_INVALID_INPUT',
        'search may be at most 200 characters long (got 201)',
        'search',
      );
      expectError(
        await get('/tb-connection/c1/keys?entityType=DEVICE&profiles=a&profiles=b'),
        400,
        'TB_INVALID_INPUT',
        'profiles must be a comma-separated list of names, given once',
        'profiles',
      );
      assert.equal(sim.requests.entries(100).length, 0);
    });
  });
});
