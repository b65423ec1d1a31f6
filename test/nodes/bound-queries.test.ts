/**
 * Values from the message (issue 17): a query built in the node (queryType json) whose placeholders
 * (`{{msg.x}}`, `{{flow.x}}`, `{{global.x}}`, `{{env.X}}`) are filled from each message, in the real runtime
 * against the simulator.
 */
import assert from 'node:assert/strict';
import { BASE_TIME } from '../../sim';
import tbAlarmQuery from '../../src/nodes/tb-alarm-query/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityCount from '../../src/nodes/tb-entity-count/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import {
  assertCode,
  Collector,
  connectionNode,
  flow,
  helper,
  inject,
  key,
  message,
  statuses,
  statusWhere,
  TENANT,
  useRuntime,
} from '../support/runtime';

const NODES = [tbConnection, tbEntityQuery, tbEntityCount, tbAlarmQuery, tbSubscribe];
type Rec = Record<string, unknown>;

const byName = (name: string): Rec => ({
  entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: name },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [{ type: 'TIME_SERIES', key: 'temperature' }],
  pageLink: { page: 0, pageSize: 10 },
});

describe('values from the message: bound queries (runtime + simulator)', function () {
  const sim = useRuntime(
    { now: () => BASE_TIME + 30 * 60000 },
    { reset: (s) => s.resetRequests(), cleanup: () => void delete process.env.TB_TEST_SITE_PROFILE },
  );

  const load = (...nodes: Rec[]) => helper.load(NODES, flow(connectionNode(sim.url), ...nodes), { c1: TENANT });
  const node = (id: string, type: string, query: unknown, extra: Rec = {}): Rec => ({
    id,
    type,
    connection: 'c1',
    queryType: 'json',
    query: JSON.stringify(query),
    format: 'flat',
    wires: [['out']],
    ...extra,
  });

  it('tb-entity-query: the device named in the message, its type kept; the node saved query unchanged', async () => {
    await load(node('q', 'tb-entity-query', byName('{{msg.payload.name}}')));
    let got = message('out');
    inject('q', { payload: { name: 'Thermo A-101' } });
    let items = (await got).payload as Rec[];
    assert.deepEqual(
      items.map((i) => i.name),
      ['Thermo A-101'],
    );
    assert.equal(items[0].temperature, 21.5);
    got = message('out');
    inject('q', { payload: { name: 'Thermo B-102' } });
    items = (await got).payload as Rec[];
    assert.deepEqual(
      items.map((i) => i.name),
      ['Thermo B-102'],
      'each message its own value',
    );
  });

  it('a number stays a number, and text among text is interpolated', async () => {
    const q = { ...byName('Thermo {{msg.wing}}-10'), pageLink: { page: 0, pageSize: '{{msg.size}}' } };
    await load(node('q', 'tb-entity-query', q));
    const got = message('out');
    inject('q', { wing: 'A', size: 2 });
    const m = await got;
    assert.deepEqual(
      (m.payload as Rec[]).map((i) => i.name),
      ['Thermo A-101', 'Thermo A-102'],
    );
    assert.equal((m.page as Rec).pageSize, 2);
  });

  it('tb-entity-count: a list item from the message, a whole list from flow context and a profile from env', async () => {
    process.env.TB_TEST_SITE_PROFILE = 'thermostat';
    await load(
      node('c', 'tb-entity-count', { entityFilter: { type: 'deviceType', deviceTypes: ['{{msg.profile}}'] } }),
      node('c2', 'tb-entity-count', { entityFilter: { type: 'deviceType', deviceTypes: '{{flow.profiles}}' } }),
      node('c3', 'tb-entity-count', {
        entityFilter: { type: 'deviceType', deviceTypes: ['{{env.TB_TEST_SITE_PROFILE}}'] },
      }),
    );
    let got = message('out');
    inject('c', { profile: 'thermostat' });
    assert.equal((await got).payload, 20);
    helper.getNode('c2').context().flow.set('profiles', 'thermostat');
    got = message('out');
    inject('c2', {});
    assert.equal((await got).payload, 20, 'a single value for a whole list becomes a one-item list');
    got = message('out');
    inject('c3', {});
    assert.equal((await got).payload, 20);
  });

  it('tb-alarm-query: find and count with the status and severity from the message', async () => {
    // find reads the alarm filter in its pageLink, count at the top (src/query/types.ts AlarmDataQuery)
    const filter = { statusList: '{{msg.statuses}}', severityList: ['{{msg.severity}}'] };
    const devices = { type: 'entityType', entityType: 'DEVICE' };
    await load(
      node(
        'find',
        'tb-alarm-query',
        { entityFilter: devices, pageLink: { page: 0, pageSize: 50, ...filter } },
        { operation: 'find' },
      ),
      node('count', 'tb-alarm-query', { entityFilter: devices, ...filter }, { operation: 'count' }),
    );
    let got = message('out');
    inject('count', { statuses: ['ACTIVE'], severity: 'CRITICAL' });
    const count = (await got).payload as number;
    assert.ok(count > 0, `some active critical alarms (got ${count})`);
    got = message('out');
    inject('find', { statuses: 'ACTIVE', severity: 'CRITICAL' });
    const alarms = (await got).payload as Rec[];
    assert.equal(alarms.length, count, 'find and count agree');
    for (const a of alarms) assert.equal(a.severity, 'CRITICAL');
  });

  it('a missing value refuses the message at Catch (path and binding named), sends nothing, and the node goes on', async () => {
    await load(node('q', 'tb-entity-query', byName('{{msg.payload.name}}')));
    for (const payload of [{}, { name: '' }, { name: null }, 'not an object']) {
      const caught = message('caught');
      inject('q', { payload });
      const error = (await caught).error as Rec;
      assertCode(error, 'TB_INVALID_INPUT');
      assert.match(
        error.message as string,
        /query\.entityFilter\.entityNameFilter is bound to msg\.payload\.name, which is (undefined|null|empty)/,
      );
    }
    const st = statuses('q');
    assert.equal(st[st.length - 1]?.fill, 'red', 'a red status');
    assert.equal(
      sim.countRequests('/api/entitiesQuery/find'),
      0,
      'nothing sent: an empty name would have matched every device',
    );
    const got = message('out');
    inject('q', { payload: { name: 'Thermo A-101' } });
    assert.equal(((await got).payload as Rec[]).length, 1);
  });

  it('a path through a missing object (an item of an empty list) is a missing value, not a crash', async () => {
    await load(node('q', 'tb-entity-query', byName('{{msg.payload[0].name}}')));
    const caught = message('caught');
    inject('q', { payload: [] });
    const error = (await caught).error as Rec;
    assertCode(error, 'TB_INVALID_INPUT');
    assert.match(error.message as string, /is bound to msg\.payload\[0\]\.name, which is undefined/);
    const got = message('out');
    inject('q', { payload: [{ name: 'Thermo A-101' }] });
    assert.equal(((await got).payload as Rec[]).length, 1);
  });

  it('a value of the wrong kind is refused in the validation words, naming the binding', async () => {
    await load(
      node('q', 'tb-entity-query', { ...byName('Thermo A-101'), pageLink: { page: 0, pageSize: '{{msg.size}}' } }),
    );
    const caught = message('caught');
    inject('q', { size: 'ten' });
    const error = (await caught).error as Rec;
    assertCode(error, 'TB_INVALID_INPUT');
    assert.match(error.message as string, /query\.pageLink\.pageSize is bound to msg\.size, which is "ten": must be/);
    assert.equal(sim.countRequests('/api/entitiesQuery/find'), 0);
  });

  it('a value is a value: quotes, braces and placeholders in it are sent as that exact text', async () => {
    await load(node('q', 'tb-entity-query', byName('{{msg.name}}')));
    const got = message('out');
    inject('q', { name: 'x"}{{msg.other}}', other: 'Thermo' });
    assert.deepEqual((await got).payload, [], 'no device has that name');
    const sent = sim.requests.entries().filter((e) => e.path === '/api/entitiesQuery/find');
    assert.equal(sent.length, 1);
    // an object where the query wants text is refused, not turned into text
    const caught = message('caught');
    inject('q', { name: { first: 'Thermo' } });
    const error = (await caught).error as Rec;
    assertCode(error, 'TB_INVALID_INPUT');
    assert.match(
      error.message as string,
      /entityNameFilter is bound to msg\.name, which is an object: must be a string/,
    );
    assert.equal(
      sim.requests.entries().filter((e) => e.path === '/api/entitiesQuery/find').length,
      1,
      'nothing more sent',
    );
  });

  it('braces around anything else are literal text, and a query without placeholders is checked at deploy as before', async () => {
    await load(
      node('q', 'tb-entity-query', byName('{{ payload }}')),
      node('bad', 'tb-entity-query', { entityFilter: { type: 'nope' } }),
    );
    const got = message('out');
    inject('q', { payload: 'Thermo A-101' });
    assert.deepEqual((await got).payload, [], 'the literal name "{{ payload }}" matches nothing');
    const st = statuses('bad');
    assert.equal(st[st.length - 1]?.fill, 'red', 'the fixed query is refused at deploy');
  });

  it('a placeholder path Node-RED cannot read is a setting problem, found at deploy', async () => {
    await load(node('q', 'tb-entity-query', byName('{{msg.payload[}}')));
    await statusWhere('q', (s) => s.fill === 'red' && s.shape === 'dot');
    const caught = message('caught');
    inject('q', { payload: {} });
    const error = (await caught).error as Rec;
    assertCode(error, 'TB_CONFIG');
    assert.match(error.message as string, /placeholder \{\{msg\.payload\[\}\} is not a message property/);
  });

  it('tb-subscribe follows its values: idle until a message; a new value replaces the subscription on the server, the same one changes nothing', async () => {
    const before = sim.ws.commandsReceived().length;
    await load(node('s', 'tb-subscribe', byName('{{msg.payload}}'), { kind: 'entityData' }));
    const st = statuses('s');
    assert.deepEqual(st[st.length - 1], { fill: 'grey', shape: 'ring', text: key('idle') }, 'waits for a message');
    assert.equal(sim.ws.commandsReceived().length, before, 'nothing subscribed at deploy');
    const c = new Collector('out');
    inject('s', { payload: 'Thermo A-101' });
    const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
    assert.deepEqual(
      (snap.payload as Rec[]).map((r) => r.name),
      ['Thermo A-101'],
    );
    const cmds = () =>
      sim.ws
        .commandsReceived()
        .slice(before)
        .filter((x) => x.type === 'ENTITY_DATA');
    assert.equal(cmds().length, 1);
    inject('s', { payload: 'Thermo A-101' });
    inject('s', { payload: 'Thermo B-102' });
    // Commands and their snapshots keep their order on the one socket: a command wrongly sent for the same value
    // would have reached the server, and its snapshot the node, before B-102's.
    await c.until((m) => m.event === 'snapshot' && (m.payload as Rec[])[0]?.name === 'Thermo B-102', 8000, true);
    assert.equal(cmds().length, 2, 'the same value: no new subscription; the new value: one');
    assert.equal(c.all.filter((m) => m.event === 'snapshot').length, 2, 'and no new snapshot for the same value');
    // the old subscription is gone from the server (its unsubscribe went out before the new command)
    const session = sim.ws.sessionList().find((x) => x.authenticated);
    assert.equal(session?.cmdIds.length, 1, 'one live subscription on the server');
    // an update of the old device is no longer delivered; one of the new device is
    sim.data.setTelemetry(sim.data.mustFindByName('DEVICE', 'Thermo A-101').id, { temperature: 33 }, Date.now());
    sim.data.setTelemetry(sim.data.mustFindByName('DEVICE', 'Thermo B-102').id, { temperature: 34 }, Date.now());
    const u = await c.until((m) => m.event === 'update', 8000, true);
    assert.equal((u.payload as Rec).name, 'Thermo B-102');
  });
});
