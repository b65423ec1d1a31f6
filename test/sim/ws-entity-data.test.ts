import assert from 'node:assert/strict';
import { once } from 'node:events';
import { BASE_TIME, HOUR, dbl } from '../../sim/index';
import { NPE_LATEST_VALUES } from '../../sim/ws/subs/entity-data';
import { field, nameQuery, tsKey, type TestWs, type Msg } from '../../sim/ws-client';
import { useWsSetup } from '../support/simulator';

const T = (n: number): number => BASE_TIME + n * 1000;

describe('simulator ws: ENTITY_DATA', function () {
  const c = useWsSetup({ wsDynamicRefreshMs: 20 }, { perTest: true });

  const dev = (name: string): { entityType: string; id: string } => {
    const e = c.sim.data.mustFindByName('DEVICE', name);
    return { entityType: 'DEVICE', id: e.id };
  };
  const latestCmd = (...keys: unknown[]): { keys: unknown[] } => ({ keys });

  async function table(
    prefix = 'Thermo A-10',
    keys: unknown[] = [tsKey('temperature')],
    pageLink: Record<string, unknown> = {},
  ): Promise<{ ws: TestWs; data: Msg }> {
    const ws = await c.connect([
      { type: 'ENTITY_DATA', cmdId: 1, query: nameQuery(prefix, keys, pageLink), latestCmd: latestCmd(...keys) },
    ]);
    return { ws, data: await ws.forCmd(1) };
  }

  it('query only: one data message, the same page as REST, and no live updates', async () => {
    const ws = await c.connect([{ type: 'ENTITY_DATA', cmdId: 1, query: nameQuery('Thermo A-10') }]);
    const m = await ws.forCmd(1);
    // Jackson writes the @JsonCreator's properties first (sim/ws/messages.ts)
    assert.deepEqual(Object.keys(m), [
      'cmdId',
      'data',
      'update',
      'errorCode',
      'errorMsg',
      'allowedEntities',
      'cmdUpdateType',
    ]);
    assert.equal(m.update, null);
    assert.equal(m.allowedEntities, 10000);
    const rest = await fetch(`${c.url}/api/entitiesQuery/find`, {
      method: 'POST',
      body: JSON.stringify(nameQuery('Thermo A-10')),
      headers: { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${c.token()}` },
    });
    assert.deepEqual(m.data, await rest.json());
    c.sim.data.setTelemetry(dev('Thermo A-101'), { temperature: 50 }, T(10));
    assert.deepEqual(await ws.probe(), []);
  });

  it('query + latestCmd: data with SQL formatting, then one-element updates with Java formatting', async () => {
    const { ws, data } = await table();
    assert.deepEqual(
      data.data.data.map((d: Msg) => d.latest.TIME_SERIES.temperature.value),
      ['21.5', '23', '26.5'],
    );
    assert.deepEqual(data.data.data[1].timeseries, {});
    assert.deepEqual(data.data.data[1].aggLatest, {});
    c.sim.data.setTelemetry(dev('Thermo A-102'), { temperature: dbl(23) }, T(60));
    assert.deepEqual(await ws.forCmd(1), {
      cmdId: 1,
      errorCode: 0,
      errorMsg: null,
      data: null,
      update: [
        {
          entityId: dev('Thermo A-102'),
          latest: { TIME_SERIES: { temperature: { ts: T(60), value: '23.0' } } },
          timeseries: null,
          aggLatest: null,
        },
      ],
      allowedEntities: 10000,
      cmdUpdateType: 'ENTITY_DATA',
    });
  });

  it('only changed and subscribed keys; stale and duplicate values are dropped; deletion pushes ts 0', async () => {
    const { ws } = await table('Thermo A-10', [tsKey('temperature'), tsKey('humidity')]);
    const a101 = dev('Thermo A-101');
    c.sim.data.setTelemetry(a101, { temperature: dbl(22.5), uptime: 5 }, T(10));
    const u = await ws.forCmd(1);
    assert.deepEqual(u.update[0].latest, { TIME_SERIES: { temperature: { ts: T(10), value: '22.5' } } });
    c.sim.data.setTelemetry(a101, { temperature: 1 }, T(5)); // older than the known value
    c.sim.data.setTelemetry(a101, { temperature: dbl(22.5) }, T(10)); // identical
    c.sim.data.setTelemetry(a101, { uptime: 6 }, T(11)); // not subscribed
    assert.deepEqual(await ws.probe(), []);
    c.sim.data.setTelemetry(a101, { temperature: dbl(22.5), humidity: 41 }, T(12));
    assert.deepEqual((await ws.forCmd(1)).update[0].latest.TIME_SERIES, {
      temperature: { ts: T(12), value: '22.5' },
      humidity: { ts: T(12), value: '41' },
    });
    c.sim.data.deleteKey(a101, 'TIME_SERIES', 'humidity');
    assert.deepEqual((await ws.forCmd(1)).update[0].latest.TIME_SERIES, { humidity: { ts: 0, value: '' } });
    c.sim.data.setTelemetry(a101, { humidity: 40 }, T(1));
    assert.deepEqual(
      (await ws.forCmd(1)).update[0].latest.TIME_SERIES,
      { humidity: { ts: T(1), value: '40' } },
      'after a deletion any value is new',
    );
  });

  it('"23" in the page and "23.0" live: the same number at the same ts is not a duplicate', async () => {
    const { ws } = await table();
    const stored = c.sim.data.latestOf(dev('Thermo A-102').id, 'temperature');
    assert.ok(stored);
    c.sim.data.setTelemetry(dev('Thermo A-102'), { temperature: dbl(23) }, stored.ts);
    assert.equal((await ws.forCmd(1)).update[0].latest.TIME_SERIES.temperature.value, '23.0');
    c.sim.data.setTelemetry(dev('Thermo A-102'), { temperature: dbl(23) }, stored.ts);
    assert.deepEqual(await ws.probe(), [], 'now it is a duplicate');
  });

  it('attributes keep the subscribed key type; ENTITY_FIELD values are never pushed', async () => {
    const keys = [{ type: 'SERVER_ATTRIBUTE', key: 'model' }, { type: 'ATTRIBUTE', key: 'fw' }, field('label')];
    const { ws, data } = await table('Thermo A-101', keys);
    assert.equal(data.data.data[0].latest.SERVER_ATTRIBUTE.model.value, 'TH-100');
    const a101 = dev('Thermo A-101');
    c.sim.data.setAttributes(a101, 'SERVER_SCOPE', { model: 'TH-101' }, T(10));
    assert.deepEqual((await ws.forCmd(1)).update[0].latest, {
      SERVER_ATTRIBUTE: { model: { ts: T(10), value: 'TH-101' } },
    });
    c.sim.data.setAttributes(a101, 'SHARED_SCOPE', { model: 'shared' }, T(11));
    c.sim.data.updateEntity(a101.id, { label: 'Renamed' });
    assert.deepEqual(await ws.probe(), []);
    c.sim.data.setAttributes(a101, 'CLIENT_SCOPE', { fw: '9.9.9' }, T(12));
    assert.deepEqual((await ws.forCmd(1)).update[0].latest, { ATTRIBUTE: { fw: { ts: T(12), value: '9.9.9' } } });
    c.sim.data.deleteKey(a101, 'SERVER_SCOPE', 'model');
    assert.deepEqual((await ws.forCmd(1)).update[0].latest, { SERVER_ATTRIBUTE: { model: { ts: 0, value: '' } } });
  });

  it('widget flow: a later latestCmd alone sends no snapshot, only values newer than the cached page', async () => {
    const ws = await c.connect([{ type: 'ENTITY_DATA', cmdId: 3, query: nameQuery('Thermo A-10') }]);
    const first = await ws.forCmd(3);
    assert.equal(first.data.data.length, 3);
    c.sim.data.setTelemetry(dev('Thermo A-103'), { temperature: 30 }, T(30));
    ws.cmds({ type: 'ENTITY_DATA', cmdId: 3, latestCmd: latestCmd(tsKey('temperature')) });
    const missed = await ws.forCmd(3);
    assert.equal(missed.data, null);
    assert.deepEqual(missed.update, [
      {
        entityId: dev('Thermo A-103'),
        latest: { TIME_SERIES: { temperature: { ts: T(30), value: '30' } } },
        timeseries: null,
        aggLatest: null,
      },
    ]);
    assert.deepEqual(await ws.probe(), [], 'nothing else: no data snapshot');
    c.sim.data.setTelemetry(dev('Thermo A-101'), { temperature: 20 }, T(31));
    assert.equal((await ws.forCmd(3)).update[0].entityId.id, dev('Thermo A-101').id);
  });

  it('a latestCmd with null latestValues is an NPE error; the other errors and their shapes', async () => {
    const q = { ...nameQuery('Thermo A-101'), latestValues: undefined };
    const ws = await c.connect([
      { type: 'ENTITY_DATA', cmdId: 1, query: q, latestCmd: latestCmd(tsKey('temperature')) },
      { type: 'ENTITY_DATA', cmdId: -1, query: nameQuery('Thermo') },
      { type: 'ENTITY_DATA', cmdId: 4 },
      { type: 'ENTITY_DATA', cmdId: 7, query: nameQuery('Thermo', [], { pageSize: 0 }) },
    ]);
    assert.deepEqual(await ws.next(), {
      subscriptionId: 1,
      errorCode: 1,
      errorMsg: NPE_LATEST_VALUES,
      data: null,
      latestValues: {},
    });
    assert.deepEqual(await ws.next(), {
      subscriptionId: -1,
      errorCode: 2,
      errorMsg: 'Cmd id is negative value!',
      data: null,
      latestValues: {},
    });
    assert.deepEqual(await ws.next(), {
      subscriptionId: 4,
      errorCode: 2,
      errorMsg: 'Query is empty!',
      data: null,
      latestValues: {},
    });
    assert.deepEqual(await ws.next(), {
      subscriptionId: 7,
      errorCode: 1,
      errorMsg: "Incorrect entity data page link page size '0'. Page size must be greater than zero.",
      data: null,
      latestValues: {},
    });
  });

  it('dynamic values as a subscription resolves them (TbAbstractEntityQuerySubCtx), unlike REST', async () => {
    const devices = { type: 'entityType', entityType: 'DEVICE' };
    const gt = (value: Record<string, unknown>): unknown => ({
      key: tsKey('temperature'),
      valueType: 'NUMERIC',
      predicate: { type: 'NUMERIC', operation: 'GREATER', value },
    });
    const tenant = (extra: Record<string, unknown> = {}) => ({
      sourceType: 'CURRENT_TENANT',
      sourceAttribute: 'tempThreshold',
      ...extra,
    });
    const page = (cmdId: number, f: unknown) => ({
      type: 'ENTITY_DATA',
      cmdId,
      query: {
        entityFilter: devices,
        pageLink: { page: 0, pageSize: 100, sortOrder: { key: field('name'), direction: 'ASC' } },
        entityFields: [field('name')],
        latestValues: [],
        keyFilters: [f],
      },
    });
    const names = (m: Msg): string[] => m.data.data.map((d: Msg) => d.latest.ENTITY_FIELD.name.value);
    const ws = await c.connect([
      // the tenant attribute (25) replaces a client-sent resolvedValue (0); REST find would use the 0 as is
      page(1, gt({ defaultValue: 29, dynamicValue: tenant({ resolvedValue: 0 }) })),
      // CURRENT_DEVICE is skipped, no error: the default (29) applies
      page(2, gt({ defaultValue: 29, dynamicValue: { sourceType: 'CURRENT_DEVICE', sourceAttribute: 'limit' } })),
      // with a userValue the dynamic value is not even registered
      page(3, gt({ defaultValue: 0, userValue: 30, dynamicValue: tenant() })),
      // a missing attribute leaves the client's resolvedValue, which then wins over the default
      page(
        4,
        gt({
          defaultValue: 0,
          dynamicValue: { sourceType: 'CURRENT_TENANT', sourceAttribute: 'missing', resolvedValue: 29 },
        }),
      ),
      // counts resolve too (REST counts do not)
      {
        type: 'ENTITY_COUNT',
        cmdId: 5,
        query: { entityFilter: devices, keyFilters: [gt({ defaultValue: 29, dynamicValue: tenant() })] },
      },
    ]);
    assert.deepEqual(names(await ws.forCmd(1)), ['Thermo A-103', 'Thermo B-101', 'Thermo G-101', 'Thermo G-202']);
    assert.deepEqual(names(await ws.forCmd(2)), ['Thermo G-202']);
    assert.deepEqual(names(await ws.forCmd(3)), ['Thermo G-202']);
    assert.deepEqual(names(await ws.forCmd(4)), ['Thermo G-202']);
    assert.equal((await ws.forCmd(5)).count, 4);
    const rest = await fetch(`${c.url}/api/entitiesQuery/count`, {
      method: 'POST',
      body: JSON.stringify({ entityFilter: devices, keyFilters: [gt({ defaultValue: 29, dynamicValue: tenant() })] }),
      headers: { 'Content-Type': 'application/json', 'X-Authorization': `Bearer ${c.token()}` },
    });
    assert.equal(await rest.json(), 1);
  });

  it('a NUMERIC value as text is read as Jackson reads it; text that is not a number fails the whole message', async () => {
    const q = (value: unknown) => ({
      entityFilter: { type: 'entityType', entityType: 'DEVICE' },
      keyFilters: [
        {
          key: tsKey('temperature'),
          valueType: 'NUMERIC',
          predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: value } },
        },
      ],
    });
    const ws = await c.connect([{ type: 'ENTITY_COUNT', cmdId: 1, query: q(' 2.9e1 ') }]);
    assert.equal((await ws.forCmd(1)).count, 1);
    ws.send({ cmds: [{ type: 'ENTITY_COUNT', cmdId: 2, query: q('abc') }] });
    assert.deepEqual(await ws.next(), {
      subscriptionId: 1,
      errorCode: 2,
      errorMsg: 'Failed to parse the payload',
      data: null,
      latestValues: {},
    });
  });

  it('an unknown field outside query/entityFilter fails the whole message: subscriptionId 1, nothing runs', async () => {
    const ws = await c.connect();
    const count = {
      type: 'ENTITY_COUNT',
      cmdId: 5,
      query: { entityFilter: { type: 'entityType', entityType: 'DEVICE' } },
    };
    const cases: unknown[] = [
      { type: 'ENTITY_DATA', cmdId: 6, query: nameQuery('Thermo', [], { extra: 1 }) },
      { type: 'ENTITY_DATA', cmdId: 6, query: nameQuery('Thermo', [{ type: 'TIME_SERIES', key: 'x', label: 'X' }]) },
      { type: 'ENTITY_DATA', cmdId: 6, query: nameQuery('Thermo'), latestCmd: { keys: [], extra: true } },
      {
        type: 'ENTITY_DATA',
        cmdId: 6,
        query: nameQuery('Thermo'),
        tsCmd: { keys: ['t'], startTs: 0, timeWindow: 1, bogus: 1 },
      },
      {
        type: 'ENTITY_DATA',
        cmdId: 6,
        query: {
          ...nameQuery('Thermo'),
          keyFilters: [
            {
              key: tsKey('t'),
              valueType: 'NUMERIC',
              predicate: { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 1, x: 1 } },
            },
          ],
        },
      },
      {
        type: 'ENTITY_COUNT',
        cmdId: 6,
        query: { entityFilter: { type: 'entityType', entityType: 'DEVICE' } },
        unknown: 1,
      },
      { type: 'NO_SUCH_TYPE', cmdId: 6 },
    ];
    for (const bad of cases) {
      ws.send({ cmds: [count, bad] });
      assert.deepEqual(await ws.next(), {
        subscriptionId: 1,
        errorCode: 2,
        errorMsg: 'Failed to parse the payload',
        data: null,
        latestValues: {},
      });
    }
    ws.send('{not json');
    assert.equal((await ws.next()).errorMsg, 'Failed to parse the payload');
    assert.deepEqual(await ws.probe(), [], 'the ENTITY_COUNT riding along never ran');
    // unknown properties of the query object and the entity filter are ignored
    ws.cmds({
      ...count,
      query: { entityFilter: { type: 'entityType', entityType: 'DEVICE', resolveMultiple: true }, whatever: 1 },
    });
    assert.equal((await ws.forCmd(5)).count, 28);
  });

  it('the same cmdId with a new query replaces the page and the subscriptions', async () => {
    const { ws } = await table('Thermo A-10');
    ws.cmds({
      type: 'ENTITY_DATA',
      cmdId: 1,
      query: nameQuery('Thermo B-10'),
      latestCmd: latestCmd(tsKey('temperature')),
    });
    const page = await ws.forCmd(1);
    assert.deepEqual(
      page.data.data.map((d: Msg) => d.latest.ENTITY_FIELD.name.value),
      ['Thermo B-101', 'Thermo B-102', 'Thermo B-103'],
    );
    c.sim.data.setTelemetry(dev('Thermo A-101'), { temperature: 40 }, T(40));
    assert.deepEqual(await ws.probe(), []);
    c.sim.data.setTelemetry(dev('Thermo B-101'), { temperature: 41 }, T(41));
    assert.equal((await ws.forCmd(1)).update[0].entityId.id, dev('Thermo B-101').id);
  });

  it('unsubscribe (any *_UNSUBSCRIBE type) stops updates; an unknown cmdId is a silent no-op', async () => {
    const { ws } = await table();
    ws.cmds({ type: 'ALARM_STATUS_UNSUBSCRIBE', cmdId: 1 }, { type: 'ENTITY_DATA_UNSUBSCRIBE', cmdId: 77 });
    assert.deepEqual(await ws.probe(), []);
    c.sim.data.setTelemetry(dev('Thermo A-101'), { temperature: 40 }, T(40));
    assert.deepEqual(await ws.probe(), []);
    assert.deepEqual(
      c.sim.ws.sessionList()[0].cmdIds.filter((id) => id < 900000),
      [],
    );
  });

  it('tsCmd: series newest first (limit) in data, then live timeseries updates', async () => {
    const ws = await c.connect([
      {
        type: 'ENTITY_DATA',
        cmdId: 2,
        query: nameQuery('Thermo A-10', []),
        tsCmd: {
          keys: ['temperature', 'nothing'],
          startTs: BASE_TIME - 3 * HOUR,
          timeWindow: 3 * HOUR + 1,
          limit: 2,
          agg: 'NONE',
        },
      },
    ]);
    const m = await ws.forCmd(2);
    const a102 = m.data.data[1];
    assert.deepEqual(a102.timeseries.nothing, []);
    assert.equal(a102.timeseries.temperature.length, 2);
    assert.deepEqual(
      a102.timeseries.temperature.map((v: Msg) => v.ts),
      [BASE_TIME, BASE_TIME - HOUR],
    );
    assert.equal(a102.timeseries.temperature[0].value, '23.0', 'series values use the Java formatting');
    c.sim.data.setTelemetry(dev('Thermo A-102'), { temperature: dbl(24) }, T(5));
    assert.deepEqual(await ws.forCmd(2), {
      cmdId: 2,
      errorCode: 0,
      errorMsg: null,
      data: null,
      update: [
        {
          entityId: dev('Thermo A-102'),
          latest: null,
          timeseries: { temperature: [{ ts: T(5), value: '24.0' }] },
          aggLatest: null,
        },
      ],
      allowedEntities: 10000,
      cmdUpdateType: 'ENTITY_DATA',
    });
  });

  it('tsCmd after the page was sent comes as an update listing every entity', async () => {
    const ws = await c.connect([{ type: 'ENTITY_DATA', cmdId: 2, query: nameQuery('Thermo A-10') }]);
    await ws.forCmd(2);
    ws.cmds({
      type: 'ENTITY_DATA',
      cmdId: 2,
      tsCmd: { keys: ['humidity'], startTs: BASE_TIME - HOUR, timeWindow: HOUR + 1, limit: 100 },
    });
    const u = await ws.forCmd(2);
    assert.equal(u.data, null);
    assert.equal(u.update.length, 3);
    assert.deepEqual(
      u.update[0].timeseries.humidity.map((v: Msg) => v.ts),
      [BASE_TIME, BASE_TIME - HOUR],
    );
    assert.ok(u.update[0].latest.ENTITY_FIELD, 'the full EntityData, latest included');
  });

  it('historyCmd is one-off; with agg it aggregates into buckets; a failed read is error shape (a)', async () => {
    const ws = await c.connect([
      {
        type: 'ENTITY_DATA',
        cmdId: 3,
        query: nameQuery('Thermo A-101', []),
        historyCmd: {
          keys: ['temperature'],
          startTs: BASE_TIME - 4 * HOUR,
          endTs: BASE_TIME,
          interval: 2 * HOUR,
          agg: 'COUNT',
          limit: 100,
        },
      },
    ]);
    const m = await ws.forCmd(3);
    assert.deepEqual(m.data.data[0].timeseries.temperature, [
      { ts: BASE_TIME - 3 * HOUR, value: '2', count: 2 },
      { ts: BASE_TIME - HOUR, value: '2', count: 2 },
    ]);
    c.sim.data.setTelemetry(dev('Thermo A-101'), { temperature: 40 }, T(40));
    assert.deepEqual(await ws.probe(), [], 'no subscription');
    c.sim.ws.failHistoryFetch(1);
    ws.cmds({
      type: 'ENTITY_DATA',
      cmdId: 3,
      historyCmd: { keys: ['temperature'], startTs: BASE_TIME - HOUR, endTs: BASE_TIME + 1 },
    });
    assert.deepEqual(await ws.forCmd(3), {
      cmdId: 3,
      errorCode: 1,
      errorMsg: 'Failed to fetch historical data!',
      data: null,
      update: null,
      allowedEntities: 0,
      cmdUpdateType: 'ENTITY_DATA',
    });
    const after = await ws.forCmd(3);
    assert.deepEqual(after.update[0].timeseries, { temperature: [] });
  });

  it('dynamic page links: full data again only when the set of entities changes; new entities are subscribed', async () => {
    const { ws, data } = await table('Thermo A-1', [tsKey('temperature')], { dynamic: true });
    assert.equal(data.data.data.length, 3);
    await once(c.sim.ws.events, 'refresh');
    await once(c.sim.ws.events, 'refresh');
    assert.deepEqual(await ws.probe(), [], 'unchanged: nothing sent');
    const added = c.sim.data.addEntity({ entityType: 'DEVICE', name: 'Thermo A-199', type: 'thermostat' });
    const page = await ws.forCmd(1);
    assert.equal(page.data.data.length, 4);
    assert.equal(page.data.data[3].entityId.id, added.id);
    c.sim.data.setTelemetry(added, { temperature: 19 }, T(50));
    assert.deepEqual((await ws.forCmd(1)).update[0].entityId.id, added.id);
    c.sim.data.removeEntity(added);
    assert.equal((await ws.forCmd(1)).data.data.length, 3);
  });
});
