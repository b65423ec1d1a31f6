/**
 * The REST query nodes in the real Node-RED runtime against the simulator over loopback HTTP:
 * filters, key filters, paging, allPages, split, formats, counts, keys and alarm filters.
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim';
import tbAlarmQuery from '../../src/nodes/tb-alarm-query/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityCount from '../../src/nodes/tb-entity-count/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import { prepareEntityDataQuery } from '../../src/protocol/validate';
import {
  connectionNode,
  errorsLogged,
  flow,
  helper,
  inject,
  key,
  lastStatus,
  message,
  messages,
  statuses,
  statusWhere,
  TENANT,
  useRuntime,
} from '../support/runtime';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- core split/join nodes, for the join test
const splitJoin = require('@node-red/nodes/core/sequence/17-split.js');

const NODES = [tbConnection, tbEntityQuery, tbEntityCount, tbAlarmQuery];
const NOW = BASE_TIME + 30 * 60000;

type Rec = Record<string, unknown>;

describe('REST query nodes (runtime + simulator)', function () {
  const sim = useRuntime({ now: () => NOW });
  let token: string;
  before(() => {
    token = sim.tokensFor('tenant@thingsboard.org').token;
  });

  /** What the server itself answers, for comparison. */
  async function direct(path: string, body: unknown): Promise<unknown> {
    const res = await fetch(sim.url + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, `direct ${path}: HTTP ${res.status}`);
    return res.json();
  }

  const ids = (items: unknown[]): string[] => items.map((i) => (i as Rec).id as string).sort();
  const directIds = async (q: Rec): Promise<string[]> =>
    ((await direct('/api/entitiesQuery/find', q)) as { data: Array<{ entityId: { id: string } }> }).data
      .map((d) => d.entityId.id)
      .sort();

  async function loadQueryNode(props: Rec, extraNodes: Rec[] = []): Promise<void> {
    await helper.load(
      [...NODES, splitJoin],
      flow(
        connectionNode(sim.url),
        {
          id: 'q',
          type: 'tb-entity-query',
          connection: 'c1',
          queryType: 'msg',
          query: 'payload',
          format: 'flat',
          wires: [['out']],
          ...props,
        },
        ...extraNodes,
      ),
      { c1: TENANT },
    );
  }

  const thermostats = (pageSize = 100, extra: Rec = {}): Rec => ({
    entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
    entityFields: [
      { type: 'ENTITY_FIELD', key: 'name' },
      { type: 'ENTITY_FIELD', key: 'label' },
    ],
    latestValues: [
      { type: 'TIME_SERIES', key: 'temperature' },
      { type: 'SERVER_ATTRIBUTE', key: 'model' },
    ],
    pageLink: { page: 0, pageSize, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
    ...extra,
  });

  it('finds entities: flat items, msg.page, the rest of the message kept', async () => {
    await loadQueryNode({});
    const got = message('out');
    inject('q', { payload: thermostats(5), topic: 'keep-me', _custom: 42 });
    const m = await got;
    const items = m.payload as Rec[];
    assert.equal(items.length, 5);
    assert.deepEqual(m.page, { page: 0, pageSize: 5, totalPages: 4, totalElements: 20, hasNext: true });
    assert.equal(m.topic, 'keep-me');
    assert.equal(m._custom, 42);
    assert.equal(items[0].name, 'Thermo A-101');
    assert.equal(items[0].entityType, 'DEVICE');
    assert.equal(typeof items[0].id, 'string');
    assert.equal(items[0].temperature, 21.5);
    assert.equal(items[0].model, 'TH-100');
    assert.equal(typeof (items[0].ts as Rec).temperature, 'number');
    const st = statuses('q');
    assert.deepEqual(st[st.length - 1], { fill: 'green', shape: 'dot', text: key('found') });
    assert.ok(
      st.some((x) => x.fill === 'blue' && x.text === key('requesting')),
      'blue while requesting',
    );
  });

  it('flat values: "23" and "23.0" are numbers, text stays text, a missing key is null; raw is untouched', async () => {
    await loadQueryNode({});
    const q = thermostats(100);
    let got = message('out');
    inject('q', { payload: q });
    const flat = (await got).payload as Rec[];
    const byName = (n: string) => flat.find((i) => i.name === n) as Rec;
    assert.equal(byName('Thermo A-102').temperature, 23);
    assert.equal(byName('Thermo B-102').temperature, 'n/a');
    assert.equal(byName('Thermo B-202').temperature, null);
    assert.equal(byName('Thermo A-103').label, '');
    await helper.unload();
    await loadQueryNode({ format: 'raw' });
    got = message('out');
    inject('q', { payload: q });
    const raw = (await got).payload as Array<{ entityId: Rec; latest: Rec }>;
    const expected = (await direct('/api/entitiesQuery/find', q)) as { data: unknown[] };
    // entity-field timestamps are the server's query time: compare everything else
    const strip = (list: unknown[]) =>
      JSON.parse(JSON.stringify(list).replace(/"ENTITY_FIELD":\{[^}]*\}[^}]*\}[^}]*\}/g, '"ENTITY_FIELD":0'));
    assert.deepEqual(strip(raw), strip(expected.data));
    assert.ok(raw[0].entityId && raw[0].latest);
  });

  it('answers every entity filter type exactly as the server does', async () => {
    await loadQueryNode({});
    const alpha = sim.data.mustFindByName('ASSET', 'Building Alpha');
    const campus = sim.data.mustFindByName('ASSET', 'Campus North');
    const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    const a102 = sim.data.mustFindByName('DEVICE', 'Thermo A-102');
    const custA = sim.data.mustFindByName('CUSTOMER', 'Customer A');
    const filters: Rec[] = [
      { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: a101.id } },
      { type: 'entityList', entityType: 'DEVICE', entityList: [a101.id, a102.id] },
      { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'thermo a' },
      { type: 'entityType', entityType: 'ASSET' },
      { type: 'assetType', assetTypes: ['floor'], assetNameFilter: 'Beta' },
      { type: 'deviceType', deviceTypes: ['meter', 'default'] },
      { type: 'deviceType', deviceType: 'meter' },
      { type: 'edgeType', edgeTypes: ['gateway'] },
      { type: 'entityViewType', entityViewTypes: ['roomView'] },
      { type: 'apiUsageState', customerId: { entityType: 'CUSTOMER', id: custA.id } },
      {
        type: 'relationsQuery',
        rootEntity: { entityType: 'ASSET', id: campus.id },
        direction: 'FROM',
        maxLevel: 3,
        filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
      },
      {
        type: 'relationsQuery',
        rootEntity: { entityType: 'ASSET', id: campus.id },
        direction: 'FROM',
        maxLevel: 2,
        fetchLastLevelOnly: true,
        filters: [],
      },
      {
        type: 'relationsQuery',
        multiRoot: true,
        multiRootEntitiesType: 'ASSET',
        multiRootEntityIds: [alpha.id],
        direction: 'FROM',
        maxLevel: 1,
        filters: [{ relationType: 'Contains', entityTypes: ['ASSET'] }],
      },
      {
        type: 'assetSearchQuery',
        rootEntity: { entityType: 'ASSET', id: campus.id },
        direction: 'FROM',
        relationType: 'Contains',
        maxLevel: 2,
        assetTypes: ['floor'],
      },
      {
        type: 'deviceSearchQuery',
        rootEntity: { entityType: 'ASSET', id: alpha.id },
        direction: 'FROM',
        relationType: 'Contains',
        maxLevel: 2,
        deviceTypes: ['thermostat'],
      },
      {
        type: 'deviceSearchQuery',
        rootEntity: { entityType: 'DEVICE', id: a101.id },
        direction: 'TO',
        relationType: 'Contains',
        maxLevel: 3,
        deviceTypes: ['thermostat'],
      },
      {
        type: 'entityViewSearchQuery',
        rootEntity: { entityType: 'ASSET', id: campus.id },
        direction: 'FROM',
        maxLevel: 5,
        entityViewTypes: ['roomView'],
      },
      {
        type: 'edgeSearchQuery',
        rootEntity: { entityType: 'ASSET', id: campus.id },
        direction: 'FROM',
        maxLevel: 5,
        edgeTypes: ['gateway'],
      },
      { type: 'entityType', entityType: 'CUSTOMER' },
      { type: 'singleEntity', singleEntity: { entityType: 'CURRENT_TENANT' } },
    ];
    let nonEmpty = 0;
    for (const entityFilter of filters) {
      const q = {
        entityFilter,
        entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
        pageLink: { page: 0, pageSize: 100 },
      };
      const got = message('out');
      inject('q', { payload: q });
      const m = await got;
      const expected = await directIds(q);
      assert.deepEqual(ids(m.payload as unknown[]), expected, `filter ${JSON.stringify(entityFilter)}`);
      if (expected.length) nonEmpty++;
    }
    assert.ok(nonEmpty >= filters.length - 3, `most filters must match something (${nonEmpty})`);
  });

  it('applies key filters of every predicate kind, sorting and textSearch as the server does', async () => {
    await loadQueryNode({});
    const kf = (key: Rec, predicate: Rec, valueType = 'NUMERIC'): Rec => ({ key, valueType, predicate });
    const T = { type: 'TIME_SERIES', key: 'temperature' };
    const cases: Rec[] = [
      { keyFilters: [kf(T, { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 24 } })] },
      { keyFilters: [kf(T, { type: 'NUMERIC', operation: 'LESS_OR_EQUAL', value: 21.5 })] },
      {
        keyFilters: [
          kf(
            { type: 'SERVER_ATTRIBUTE', key: 'model' },
            { type: 'STRING', operation: 'IN', value: { defaultValue: "'TH-200', 'MT-1'" }, ignoreCase: false },
            'STRING',
          ),
        ],
      },
      {
        keyFilters: [
          kf(
            { type: 'ATTRIBUTE', key: 'model' },
            { type: 'STRING', operation: 'STARTS_WITH', value: { defaultValue: 'th' }, ignoreCase: true },
            'STRING',
          ),
        ],
      },
      {
        keyFilters: [
          kf(
            { type: 'SERVER_ATTRIBUTE', key: 'active' },
            { type: 'BOOLEAN', operation: 'EQUAL', value: { defaultValue: false } },
            'BOOLEAN',
          ),
        ],
      },
      {
        keyFilters: [
          kf(T, { type: 'STRING', operation: 'NOT_EQUAL', value: { defaultValue: 'x' }, ignoreCase: false }, 'STRING'),
        ],
      },
      {
        keyFilters: [
          kf(T, {
            type: 'COMPLEX',
            operation: 'OR',
            predicates: [
              { type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 19 } },
              {
                type: 'COMPLEX',
                operation: 'AND',
                predicates: [
                  { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 27 } },
                  { type: 'NUMERIC', operation: 'LESS', value: { defaultValue: 30 } },
                ],
              },
            ],
          }),
        ],
      },
      {
        keyFilters: [
          kf(T, {
            type: 'NUMERIC',
            operation: 'GREATER',
            value: {
              defaultValue: 99,
              dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'tempThreshold' },
            },
          }),
        ],
      },
      { pageLink: { page: 0, pageSize: 100, textSearch: 'lab' } },
      { pageLink: { page: 0, pageSize: 100, sortOrder: { key: T, direction: 'DESC' } } },
    ];
    for (const c of cases) {
      const q = { ...thermostats(100), ...c };
      const got = message('out');
      inject('q', { payload: q });
      const m = await got;
      const expected = (
        (await direct('/api/entitiesQuery/find', prepareEntityDataQuery(q))) as {
          data: Array<{ entityId: { id: string } }>;
        }
      ).data.map((d) => d.entityId.id);
      assert.deepEqual(
        (m.payload as Rec[]).map((i) => i.id),
        expected,
        `case ${JSON.stringify(c)}`,
      );
    }
  });

  it('allPages returns every item; maxItems cuts it short with msg.page.truncated and a warning status', async () => {
    await loadQueryNode({ allPages: true, maxItems: 7 });
    const got = message('out');
    const warned = statusWhere('q', (s) => s.fill === 'yellow' && s.text === key('truncated'));
    inject('q', { payload: thermostats(3) });
    const m = await got;
    assert.equal((m.payload as unknown[]).length, 7);
    assert.equal((m.page as Rec).truncated, true);
    assert.equal((m.page as Rec).totalElements, 20);
    await warned;
    await helper.unload();

    await loadQueryNode({ allPages: true });
    sim.resetRequests();
    const all = message('out');
    inject('q', { payload: thermostats(6) });
    const m2 = await all;
    const items = m2.payload as Rec[];
    assert.equal(items.length, 20);
    assert.equal(new Set(ids(items)).size, 20, 'no item twice');
    assert.deepEqual(
      items.map((i) => i.name),
      [...items.map((i) => i.name as string)].sort((a, b) => a.localeCompare(b)),
    );
    assert.equal((m2.page as Rec).truncated, undefined);
    assert.equal((m2.page as Rec).pages, 4);
    assert.equal(sim.countRequests('/api/entitiesQuery/find'), 4);
  });

  it('split sends one message per item with msg.parts, and a join node rebuilds the array (one page and allPages)', async () => {
    const join = { id: 'join', type: 'join', mode: 'auto', build: 'array', wires: [['out']] };
    for (const props of [{ split: true }, { split: true, allPages: true }]) {
      await loadQueryNode({ ...props, wires: [['join', 'parts']] }, [join, { id: 'parts', type: 'helper', wires: [] }]);
      const partsMsgs = messages('parts', 20);
      const joined = message('out');
      inject('q', { payload: thermostats(props.allPages ? 6 : 20) });
      const ps = await partsMsgs;
      assert.deepEqual(
        ps.map((p) => (p.parts as Rec).index),
        [...Array(20).keys()],
      );
      assert.ok(ps.every((p) => (p.parts as Rec).count === 20 && (p.parts as Rec).type === 'array'));
      assert.equal(new Set(ps.map((p) => (p.parts as Rec).id)).size, 1);
      const j = await joined;
      assert.equal((j.payload as unknown[]).length, 20);
      assert.deepEqual(ids(j.payload as unknown[]), ids(ps.map((p) => p.payload)));
      await helper.unload();
    }
  });

  it('an empty result says why: "no match" when nothing matched, "0 of N" past the last page, a bare 0 for a count', async () => {
    const none = thermostats(10, {
      entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'No such device' },
    });
    for (const props of [{}, { allPages: true }, { split: true }]) {
      await loadQueryNode(props, [
        { id: 'ec', type: 'tb-entity-count', connection: 'c1', queryType: 'msg', query: 'payload', wires: [['out']] },
      ]);
      const last = () => statuses('q')[statuses('q').length - 1];
      let done = statusWhere('q', (s) => s.fill === 'green');
      inject('q', { payload: none });
      await done;
      assert.deepEqual(last(), { fill: 'green', shape: 'dot', text: key('noMatch') }, JSON.stringify(props));
      if (!props.allPages) {
        done = statusWhere('q', (s) => s.fill === 'green');
        inject('q', { payload: { ...thermostats(10), pageLink: { page: 5, pageSize: 10 } } });
        await done;
        assert.deepEqual(
          last(),
          { fill: 'green', shape: 'dot', text: key('found') },
          'a page past the end: something matched',
        );
      }
      done = statusWhere('q', (s) => s.fill === 'green');
      inject('q', { payload: thermostats(3) });
      await done;
      assert.deepEqual(last(), { fill: 'green', shape: 'dot', text: key('found') });
      await helper.unload();
    }
    await loadQueryNode({}, [
      { id: 'ec', type: 'tb-entity-count', connection: 'c1', queryType: 'msg', query: 'payload', wires: [['out']] },
    ]);
    const got = message('out');
    const counted = statusWhere('ec', (s) => s.fill === 'green');
    inject('ec', { payload: { entityFilter: none.entityFilter } });
    assert.equal((await got).payload, 0);
    assert.deepEqual(await counted, { fill: 'green', shape: 'dot', text: key('count') });
  });

  it('counts entities and alarms (bare numbers), and accepts a find query for an alarm count', async () => {
    await helper.load(
      NODES,
      flow(
        connectionNode(sim.url),
        {
          id: 'ec',
          type: 'tb-entity-count',
          connection: 'c1',
          queryType: 'json',
          query: JSON.stringify({ entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] } }),
          wires: [['out']],
        },
        {
          id: 'ac',
          type: 'tb-alarm-query',
          operation: 'count',
          connection: 'c1',
          queryType: 'msg',
          query: 'payload',
          wires: [['out']],
        },
      ),
      { c1: TENANT },
    );
    let got = message('out');
    inject('ec', { payload: 'ignored' });
    assert.equal((await got).payload, 20);
    const cases: Array<[Rec, Rec]> = [
      [{ statusList: ['ACTIVE'] }, { statusList: ['ACTIVE'] }],
      [
        { statusList: ['ACTIVE', 'UNACK'], severityList: ['CRITICAL', 'WARNING', 'INDETERMINATE', 'MAJOR'] },
        { statusList: ['ACTIVE', 'UNACK'], severityList: ['CRITICAL', 'WARNING', 'INDETERMINATE', 'MAJOR'] },
      ],
      [
        {
          entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
          pageLink: { pageSize: 10, typeList: ['High Temperature'] },
        },
        { entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] }, typeList: ['High Temperature'] },
      ],
    ];
    for (const [input, wire] of cases) {
      got = message('out');
      inject('ac', { payload: input });
      assert.equal((await got).payload, await direct('/api/alarmsQuery/count', wire), JSON.stringify(input));
    }
    got = message('out');
    inject('ac', { payload: { statusList: ['ACTIVE'] } });
    assert.equal((await got).payload, 10);
  });

  it('key filter values at the edges reach the server as it reads them; what it would fail on or ignore is refused first', async () => {
    await helper.load(
      NODES,
      flow(
        connectionNode(sim.url),
        {
          id: 'q',
          type: 'tb-entity-query',
          connection: 'c1',
          queryType: 'msg',
          query: 'payload',
          format: 'flat',
          wires: [['out']],
        },
        { id: 'ec', type: 'tb-entity-count', connection: 'c1', queryType: 'msg', query: 'payload', wires: [['out']] },
        {
          id: 'aq',
          type: 'tb-alarm-query',
          operation: 'find',
          connection: 'c1',
          queryType: 'msg',
          query: 'payload',
          format: 'flat',
          wires: [['out']],
        },
      ),
      { c1: TENANT },
    );
    const T = { type: 'TIME_SERIES', key: 'temperature' };
    const gt = (value: unknown): Rec =>
      thermostats(100, { keyFilters: [{ key: T, predicate: { type: 'NUMERIC', operation: 'GREATER', value } }] });
    const found = async (payload: Rec): Promise<string[]> => {
      const got = message('out');
      inject('q', { payload });
      return ids((await got).payload as unknown[]);
    };
    const expected = await directIds(gt({ defaultValue: 29 }));
    assert.ok(expected.length > 0);
    // numeric text (what Jackson reads as 29.0), a userValue alone, a resolvedValue the server uses as is
    assert.deepEqual(await found(gt({ defaultValue: ' 2.9e1 ' })), expected);
    assert.deepEqual(await found(gt({ defaultValue: null, userValue: '29' })), expected);
    assert.deepEqual(
      await found(
        gt({
          defaultValue: 0,
          dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'tempThreshold', resolvedValue: 29 },
        }),
      ),
      expected,
    );
    // an empty group is no condition
    const all = await found(thermostats(100));
    assert.deepEqual(
      await found(
        thermostats(100, { keyFilters: [{ key: T, predicate: { type: 'COMPLEX', operation: 'OR', predicates: [] } }] }),
      ),
      all,
    );
    // CURRENT_DEVICE: tb-entity-query refuses it (the server's find fails on it), naming the field; nothing is sent
    sim.resetRequests();
    const caught = messages('caught', 3);
    const device = gt({ defaultValue: 29, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'limit' } });
    inject('q', { payload: device });
    // tb-entity-count and tb-alarm-query refuse it too without a userValue (they never resolve it)
    inject('ec', {
      payload: { entityFilter: { type: 'entityType', entityType: 'DEVICE' }, keyFilters: device.keyFilters },
    });
    inject('aq', { payload: { ...device, alarmFields: [] } });
    const errs = (await caught).map((m) => m.error as Rec);
    const errOf = (id: string): Rec => errs.find((e) => (e.source as Rec).id === id) as Rec;
    assert.match(
      errOf('q').message as string,
      /msg\.payload\.keyFilters\[0\]\.predicate\.value\.dynamicValue\.sourceType must be CURRENT_TENANT, CURRENT_CUSTOMER or CURRENT_USER in an entity data query sent over REST/,
    );
    for (const id of ['ec', 'aq']) {
      assert.match(
        errOf(id).message as string,
        /msg\.payload\.keyFilters\[0\]\.predicate\.value\.dynamicValue\.sourceType must be .*which a REST count or alarm query never resolves/,
        id,
      );
    }
    assert.equal(
      sim.countRequests('/api/entitiesQuery') + sim.countRequests('/api/alarmsQuery'),
      0,
      'nothing was sent',
    );
    // ... and accepts it with a userValue, which the server then uses
    const countQuery = {
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      keyFilters: [
        {
          key: T,
          predicate: {
            type: 'NUMERIC',
            operation: 'GREATER',
            value: {
              defaultValue: 0,
              userValue: 29,
              dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'limit' },
            },
          },
        },
      ],
    };
    const got = message('out');
    inject('ec', { payload: countQuery });
    assert.equal(
      (await got).payload,
      await direct('/api/entitiesQuery/count', {
        entityFilter: countQuery.entityFilter,
        keyFilters: gt({ defaultValue: 29 }).keyFilters,
      }),
    );
  });

  it('finds alarms: flat shape, alarmFields added for the user, and the alarm filters as the server applies them', async () => {
    await helper.load(
      NODES,
      flow(connectionNode(sim.url), {
        id: 'aq',
        type: 'tb-alarm-query',
        operation: 'find',
        connection: 'c1',
        queryType: 'msg',
        query: 'payload',
        format: 'flat',
        wires: [['out']],
      }),
      { c1: TENANT },
    );
    const tech = sim.data.mustFindByName('USER', 'tech@thingsboard.org');
    const base = {
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
    };
    const pl = (extra: Rec): Rec => ({
      page: 0,
      pageSize: 100,
      sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
      ...extra,
    });
    const cases: Rec[] = [
      pl({}),
      pl({ severityList: ['CRITICAL'] }),
      pl({ statusList: ['ACTIVE', 'UNACK'] }),
      pl({ statusList: ['CLEARED'] }),
      pl({ typeList: ['Power Failure'] }),
      pl({ timeWindow: 5 * HOUR }),
      pl({ startTs: BASE_TIME - 13 * HOUR, endTs: BASE_TIME - 5 * HOUR }),
      pl({ assigneeId: tech.id }),
      pl({ searchPropagatedAlarms: true }),
    ];
    for (const pageLink of cases) {
      const got = message('out');
      inject('aq', { payload: { ...base, pageLink } });
      const m = await got;
      const wirePageLink = { ...pageLink } as Rec;
      if (typeof wirePageLink.assigneeId === 'string')
        wirePageLink.assigneeId = { entityType: 'USER', id: wirePageLink.assigneeId };
      const expected = (await direct('/api/alarmsQuery/find', {
        ...base,
        alarmFields: [],
        pageLink: wirePageLink,
      })) as { data: Array<{ id: { id: string } }> };
      assert.deepEqual(
        (m.payload as Rec[]).map((a) => a.id),
        expected.data.map((a) => a.id.id),
        JSON.stringify(pageLink),
      );
    }
    const got = message('out');
    inject('aq', { payload: { ...base, pageLink: pl({ severityList: ['CRITICAL'], statusList: ['ACTIVE'] }) } });
    const alarm = ((await got).payload as Rec[])[0];
    assert.equal(alarm.type, 'High Temperature');
    assert.equal(alarm.severity, 'CRITICAL');
    assert.equal(alarm.status, 'ACTIVE_UNACK');
    assert.deepEqual(Object.keys(alarm.originator as Rec).sort(), ['entityType', 'id']);
    assert.equal(alarm.originatorName, 'Thermo A-101');
    assert.equal(alarm.tenantId, sim.data.mustFindByName('TENANT', 'Tenant').id);
    assert.ok('customerId' in alarm && 'assigneeId' in alarm);
    assert.equal(alarm.temperature, 21.5);
    assert.equal(typeof alarm.createdTime, 'number');
  });

  it('lists keys in one shape on new servers (v2) and on old ones (v1 fallback)', async () => {
    const q = JSON.stringify({
      entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
      pageLink: { page: 0, pageSize: 100 },
    });
    const results: Rec[] = [];
    for (const version of ['4.3.1.3', '4.2.0']) {
      sim.setVersion(version);
      sim.resetRequests();
      await loadQueryNode({
        operation: 'keys',
        queryType: 'json',
        query: q,
        keysTimeseries: true,
        keysAttributes: true,
        keysScopes: '',
      });
      const got = message('out');
      inject('q', { payload: '' });
      results.push((await got).payload as Rec);
      if (version === '4.2.0') assert.ok(sim.countRequests('/api/entitiesQuery/find/keys') >= 2, 'v1 endpoint used');
      else assert.equal(sim.countRequests('/api/entitiesQuery/find/keys'), 0);
      await helper.unload();
    }
    sim.setVersion('4.3.1.3');
    const [v2, v1] = results;
    assert.deepEqual(v2.timeseries, ['humidity', 'temperature']);
    assert.deepEqual(v1.timeseries, v2.timeseries);
    assert.deepEqual(v1.entityTypes, ['DEVICE']);
    assert.deepEqual(v1.attributes, v2.attributes);
    assert.ok(((v2.attributes as Rec).SERVER_SCOPE as string[]).includes('model'));
    assert.ok(((v2.attributes as Rec).CLIENT_SCOPE as string[]).includes('fw'));
  });

  it('key statuses say "1 key" for one and "no keys" for none', async () => {
    const solo = sim.data.addEntity({ entityType: 'DEVICE', name: 'Solo sensor', type: 'solo' });
    try {
      sim.data.setTelemetry(solo.id, { level: 1 }, BASE_TIME);
      const byType = (t: string) =>
        JSON.stringify({
          entityFilter: { type: 'deviceType', deviceTypes: [t] },
          pageLink: { page: 0, pageSize: 100 },
        });
      for (const [query, want, status] of [
        [byType('solo'), ['level'], 'oneKey'],
        [byType('no such type'), [], 'noKeys'],
      ] as const) {
        await loadQueryNode({
          operation: 'keys',
          queryType: 'json',
          query,
          keysTimeseries: true,
          keysAttributes: false,
          keysScopes: '',
        });
        const done = statusWhere('q', (s) => s.fill === 'green');
        const got = message('out');
        inject('q', { payload: '' });
        assert.deepEqual(((await got).payload as Rec).timeseries, want);
        assert.equal((await done).text, key(status));
        await helper.unload();
      }
    } finally {
      sim.data.removeEntity(solo.id);
    }
  });

  it('reads the query from msg, flow, global, jsonata or the node itself', async () => {
    const q = thermostats(2);
    const sources: Rec[] = [
      { queryType: 'json', query: JSON.stringify(q) },
      { queryType: 'msg', query: 'req.query' },
      { queryType: 'flow', query: 'tbq' },
      { queryType: 'global', query: 'tbq' },
      {
        queryType: 'jsonata',
        query:
          '{"entityFilter": {"type": "deviceType", "deviceTypes": [$$.kind]}, "pageLink": {"page": 0, "pageSize": 2}}',
      },
    ];
    for (const s of sources) {
      await loadQueryNode(s);
      const node = helper.getNode('q') as unknown as {
        context(): { flow: { set(k: string, v: unknown): void }; global: { set(k: string, v: unknown): void } };
      };
      node.context().flow.set('tbq', q);
      node.context().global.set('tbq', q);
      const got = message('out');
      inject('q', { payload: 'x', req: { query: q }, kind: 'thermostat' });
      const m = await got;
      assert.equal((m.payload as unknown[]).length, 2, JSON.stringify(s));
      assert.equal((m.page as Rec).totalElements, 20);
      await helper.unload();
    }
  });

  describe('settings saved by an older version, or not allowed', function () {
    const DEVICES = { entityFilter: { type: 'entityType', entityType: 'DEVICE' } };
    const TYPES = ['tb-entity-query', 'tb-entity-count', 'tb-alarm-query'];

    /** One node of each type, saved with its connection and `props` only, each wired to its own helper node. */
    async function loadEach(props: Rec): Promise<void> {
      const nodes = TYPES.flatMap((type) => [
        { id: type, type, connection: 'c1', ...props, wires: [[`${type}-out`]] },
        { id: `${type}-out`, type: 'helper' },
      ]);
      await helper.load(NODES, flow(connectionNode(sim.url), ...nodes), { c1: TENANT });
    }

    it('saved by version 1 without a query: none, as version 1 read it (a problem at deploy, every message refused)', async () => {
      await loadEach({ version: 1 });
      for (const type of TYPES) {
        assert.equal(lastStatus(type)?.fill, 'red', type);
        assert.match(String(errorsLogged(type)[0]), /^query must be an object .*\(missing\)$/, type);
      }
      const caught = message('caught');
      inject('tb-entity-count', { payload: 'x' });
      assert.match(String(((await caught).error as Rec).message), /query must be an object/);
    });

    it("saved by version 2 without a query: the query a new node's dialog starts with", async () => {
      await loadEach({ version: 2 });
      const count = message('tb-entity-count-out');
      const found = message('tb-entity-query-out');
      const alarms = message('tb-alarm-query-out');
      for (const type of TYPES) inject(type, { payload: 'x' });
      // every device; every device with its name, type and label, by name; the active alarms of every device
      assert.equal((await count).payload, await direct('/api/entitiesQuery/count', { ...DEVICES, keyFilters: [] }));
      const entities = (await found).payload as Rec[];
      const byName = (await direct('/api/entitiesQuery/find', {
        ...DEVICES,
        entityFields: ['name', 'type', 'label'].map((k) => ({ type: 'ENTITY_FIELD', key: k })),
        pageLink: {
          page: 0,
          pageSize: 100,
          sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' },
        },
      })) as { data: Array<{ entityId: { id: string } }> };
      assert.ok(entities.length > 0);
      assert.deepEqual(
        entities.map((e) => e.id),
        byName.data.map((d) => d.entityId.id),
      );
      assert.deepEqual(Object.keys(entities[0]).sort(), ['entityType', 'id', 'label', 'name', 'ts', 'type']);
      const active = (await alarms).payload as Rec[];
      assert.ok(active.length > 0);
      assert.ok(active.every((a) => a.status === 'ACTIVE_UNACK' || a.status === 'ACTIVE_ACK'));
      for (const type of TYPES) assert.deepEqual(errorsLogged(type), [], type);
    });

    it('a setting its declaration does not allow is a problem at deploy, naming it and what it allows', async () => {
      await loadQueryNode({ format: 'Raw', allPages: 'yes', maxItems: '0' });
      assert.equal(lastStatus('q')?.fill, 'red');
      assert.deepEqual(errorsLogged('q').map(String), [
        'format must be one of flat, raw (got "Raw"; did you mean "raw"?)',
      ]);
      const caught = message('caught');
      inject('q', { payload: thermostats(5) });
      assert.match(String(((await caught).error as Rec).message), /format must be one of flat, raw/);
    });
  });
});
