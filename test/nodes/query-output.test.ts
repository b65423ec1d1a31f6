/**
 * *Output to* of the REST query nodes in the real Node-RED runtime against the simulator: the result (list, count,
 * keys, each item of a split) goes to the message property the node names, the rest of the message stays as without
 * the setting; a property Node-RED cannot write is refused at deploy, with nothing sent; and a query's list goes
 * straight into tb-attributes (query → attributes, no node between).
 */
import assert from 'node:assert/strict';
import { BASE_TIME } from '../../sim';
import tbAlarmQuery from '../../src/nodes/tb-alarm-query/index';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityCount from '../../src/nodes/tb-entity-count/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import {
  errorsLogged,
  flowsOn,
  helper,
  inject,
  key,
  statuses,
  useRuntime,
  type Msg,
  type Rec,
} from '../support/runtime';

const NODES = [tbConnection, tbEntityQuery, tbEntityCount, tbAlarmQuery, tbAttributes];

const THERMOSTATS = {
  entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  pageLink: { page: 0, pageSize: 8, sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' } },
};
const ALARMS = {
  entityFilter: { type: 'entityType', entityType: 'DEVICE' },
  pageLink: { page: 0, pageSize: 100, statusList: ['ACTIVE'] },
};

describe('Output to of the query nodes (runtime + simulator)', function () {
  const sim = useRuntime({ now: () => BASE_TIME + 30 * 60000 }, { reset: (s) => s.resetRequests() });
  const { load, results } = flowsOn(sim, NODES);

  const query = (id: string, type: string, props: Rec = {}): Rec => ({
    id,
    type,
    connection: 'c1',
    queryType: 'msg',
    query: 'payload',
    format: 'flat',
    wires: [['out']],
    ...props,
  });
  const thermostatNames = () =>
    sim.data
      .devices()
      .filter((d) => d.type === 'thermostat')
      .map((d) => d.name)
      .sort();
  const names = (list: unknown): string[] => (list as Rec[]).map((i) => i.name as string);

  /** The messages of one split, in order, after sending `msg` into node `id`. */
  async function split(id: string, msg: Msg, n: number): Promise<Msg[]> {
    inject(id, msg);
    const got: Msg[] = [];
    while (got.length < n) {
      const r = await results.next();
      assert.ok(r.out, `expected an output, got the error ${JSON.stringify(r.error)}`);
      got.push(r.out);
    }
    return got;
  }

  it('find, one page: the list goes to msg.entity; msg.payload, msg.page and the rest of the message stay', async () => {
    await load([query('q', 'tb-entity-query', { output: 'entity' })]);
    const out = await results.ok('q', { payload: THERMOSTATS, topic: 'keep' });
    assert.deepEqual(names(out.entity), thermostatNames().slice(0, 8));
    assert.deepEqual(out.payload, THERMOSTATS, 'the incoming payload is kept');
    assert.deepEqual(out.page, { page: 0, pageSize: 8, totalPages: 3, totalElements: 20, hasNext: true });
    assert.equal(out.topic, 'keep');
    assert.deepEqual(statuses('q').at(-1), { fill: 'green', shape: 'dot', text: key('found') });
  });

  it('find, all pages, and a deeper path: missing parents are made, existing ones kept', async () => {
    await load([
      query('q', 'tb-entity-query', { output: 'data.list', allPages: true }),
      query('a', 'tb-alarm-query', { output: 'msg.alarms', allPages: true }),
    ]);
    const out = await results.ok('q', { payload: THERMOSTATS });
    assert.deepEqual(names((out.data as Rec).list), thermostatNames());
    assert.equal((out.page as Rec).pages, 3);
    const kept = await results.ok('q', { payload: THERMOSTATS, data: { note: 'mine' } });
    assert.equal((kept.data as Rec).note, 'mine');
    assert.equal(((kept.data as Rec).list as unknown[]).length, 20);
    // "msg." in front is read as Node-RED reads it
    const alarms = await results.ok('a', { payload: ALARMS });
    assert.ok(Array.isArray(alarms.alarms) && (alarms.alarms as unknown[]).length > 0);
    assert.deepEqual(alarms.payload, ALARMS);
  });

  it('find with split: each item goes to msg.entity, one page and all pages', async () => {
    for (const props of [{ split: true }, { split: true, allPages: true }]) {
      await helper.unload();
      await load([query('q', 'tb-entity-query', { output: 'entity', ...props })]);
      const n = props.allPages ? 20 : 8;
      const ms = await split('q', { payload: THERMOSTATS, topic: 't' }, n);
      assert.deepEqual(
        ms.map((m) => (m.entity as Rec).name),
        thermostatNames().slice(0, n),
        JSON.stringify(props),
      );
      assert.ok(
        ms.every(
          (m) =>
            (m.parts as Rec).count === n &&
            m.topic === 't' &&
            (m.payload as Rec).entityFilter !== undefined &&
            (m.page as Rec).totalElements === 20,
        ),
        'parts, page and the incoming message on each',
      );
    }
  });

  it('counts and keys go to the named property', async () => {
    await load([
      query('ec', 'tb-entity-count', {
        output: 'count',
        queryType: 'json',
        query: JSON.stringify({ entityFilter: THERMOSTATS.entityFilter }),
      }),
      query('ac', 'tb-alarm-query', { operation: 'count', output: 'alarms.active' }),
      // a part named by the message itself, as Node-RED resolves it
      query('by', 'tb-entity-count', { output: 'by[msg.kind]' }),
      query('k', 'tb-entity-query', {
        operation: 'keys',
        output: 'keys',
        queryType: 'json',
        query: JSON.stringify(THERMOSTATS),
        keysTimeseries: true,
        keysAttributes: true,
        keysScopes: '',
      }),
    ]);
    const counted = await results.ok('ec', { payload: 'go' });
    assert.equal(counted.count, 20);
    assert.equal(counted.payload, 'go');
    const alarms = await results.ok('ac', { payload: { statusList: ['ACTIVE'] } });
    assert.equal(typeof (alarms.alarms as Rec).active, 'number');
    assert.ok(((alarms.alarms as Rec).active as number) > 0);
    assert.deepEqual(alarms.payload, { statusList: ['ACTIVE'] });
    const by = await results.ok('by', { payload: { entityFilter: THERMOSTATS.entityFilter }, kind: 'thermostat' });
    assert.deepEqual(by.by, { thermostat: 20 });
    const keys = await results.ok('k', { payload: 'go' });
    assert.ok(((keys.keys as Rec).timeseries as string[]).includes('temperature'));
    assert.equal(keys.payload, 'go');
  });

  it('without the setting (an older flow) or with payload, the result goes to msg.payload as before', async () => {
    await load([
      query('old', 'tb-entity-query'),
      query('p', 'tb-entity-query', { output: 'payload' }),
      query('c', 'tb-entity-count', { output: 'payload' }),
    ]);
    for (const id of ['old', 'p']) {
      const out = await results.ok(id, { payload: THERMOSTATS });
      assert.deepEqual(names(out.payload), thermostatNames().slice(0, 8), id);
      assert.equal(out.entity, undefined, id);
    }
    assert.equal((await results.ok('c', { payload: { entityFilter: THERMOSTATS.entityFilter } })).payload, 20);
  });

  it('a property Node-RED cannot write is refused at deploy: red dot, one log line naming the setting, nothing sent', async () => {
    const bad: Array<[string, string, Rec]> = [
      ['q', 'tb-entity-query', { output: 'a..b' }],
      ['s', 'tb-entity-query', { output: '', split: true }],
      ['c', 'tb-entity-count', { output: 'x[' }],
      ['a', 'tb-alarm-query', { output: '__proto__.polluted' }],
      ['n', 'tb-alarm-query', { output: '.count', operation: 'count' }],
    ];
    await load(bad.map(([id, type, props]) => query(id, type, props)));
    for (const [id, , props] of bad) {
      assert.deepEqual(statuses(id), [{ fill: 'red', shape: 'dot', text: key('configError') }], id);
      const logged = errorsLogged(id).map(String);
      assert.equal(logged.length, 1, `${id}: one log line`);
      assert.ok(
        logged[0].startsWith(
          `Output to (output) must be a message property such as payload or entity: "${props.output as string}"`,
        ),
        logged[0],
      );
    }
    for (const [id] of bad) {
      const { error } = await results.fails(
        id,
        { payload: THERMOSTATS },
        'TB_CONFIG',
        /Output to \(output\) must be a message property/,
      );
      assert.equal((error.source as Rec).id, id);
    }
    assert.equal(sim.countRequests('/api/'), 0, 'nothing was sent, not even a login');
    assert.equal(({} as Rec).polluted, undefined);
  });

  it('a path through a value that is not an object: the message is refused with an error that says so', async () => {
    await load([query('q', 'tb-entity-query', { output: 'meta.list' })]);
    await results.fails(
      'q',
      { payload: THERMOSTATS, meta: 'text' },
      'TB_INVALID_INPUT',
      /Output to msg\.meta\.list: the result cannot go there/,
    );
    // the next message, whose meta is an object, goes through
    const out = await results.ok('q', { payload: THERMOSTATS, meta: {} });
    assert.equal(((out.meta as Rec).list as unknown[]).length, 8);
  });

  it('query → attributes with no node between: every thermostat gets targetTemp 21', async () => {
    const all = { ...THERMOSTATS, pageLink: { ...THERMOSTATS.pageLink, pageSize: 100 } };
    await load([
      query('q', 'tb-entity-query', {
        output: 'entity',
        queryType: 'json',
        query: JSON.stringify(all),
        wires: [['attr']],
      }),
      {
        id: 'attr',
        type: 'tb-attributes',
        connection: 'c1',
        operation: 'save',
        scope: 'SERVER_SCOPE',
        wires: [['out']],
      },
    ]);
    const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
    assert.ok(thermostats.length >= 20);
    for (const d of thermostats) assert.notEqual(sim.data.attributeOf(d.id, 'SERVER_SCOPE', 'targetTemp')?.value, 21);
    const out = await results.ok('q', { payload: { targetTemp: 21 } });
    assert.equal(out.failed, 0);
    assert.equal((out.payload as unknown[]).length, thermostats.length);
    for (const d of thermostats)
      assert.equal(sim.data.attributeOf(d.id, 'SERVER_SCOPE', 'targetTemp')?.value, 21, d.name);
  });
});
