/**
 * tb-entity in the real Node-RED runtime against the simulator over loopback: create or update by name (created,
 * updated keeping the customer and the gateway flag, unchanged), create only and update only, get, delete, assign and
 * unassign, the access token read and set, a list of rows with one result per row in order and bounded concurrency,
 * the traps (an unknown profile refused with nothing written, a 409 read again and retried once, then reported), a
 * customer user's by-name refusal, and bad input at Catch with nothing sent; entity views (every operation, the
 * refused delete of a viewed device, their bad input).
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntity from '../../src/nodes/tb-entity/index';
import { flowsOn, key, lastStatus, useRuntime, warningsOf, type Rec } from '../support/runtime';
import { InFlight } from './device-support';

const NODES = [tbConnection, tbEntity];
const CUSTOMER_A = { username: 'customer@thingsboard.org', password: 'customer' };

function ent(id: string, props: Rec = {}): Rec {
  return { id, type: 'tb-entity', connection: 'c1', wires: [['out']], ...props };
}

describe('tb-entity (runtime + simulator)', function () {
  const sim = useRuntime(
    {},
    {
      settings: { tbConnectionRetryInitialMs: 5, tbConnectionRetryMaxMs: 20 },
      reset: (s) => {
        s.resetRequests();
        s.entities.reset();
      },
      cleanup: (s) => s.faults.clear(),
    },
  );
  const { load, results } = flowsOn(sim, NODES);
  const writes = () =>
    sim.requests.entries().filter((e) => e.method !== 'GET' && !e.path.startsWith('/api/auth/')).length;

  it('create or update: created (msg.entity for the next node), then updated keeping the rest, then unchanged', async () => {
    await load([ent('e')]);
    let out = await results.ok('e', {
      payload: { name: 'N-1', profile: 'meter', gateway: true, attributes: { floor: 1 } },
    });
    assert.equal(out.action, 'created');
    const d = sim.data.mustFindByName('DEVICE', 'N-1');
    assert.deepEqual(out.entity, { entityType: 'DEVICE', id: d.id });
    assert.equal((out.payload as Rec).type, 'meter');
    assert.equal(sim.data.getAttribute(d, 'SERVER_SCOPE', 'floor')?.value, 1);
    const custB = sim.data.mustFindByName('CUSTOMER', 'Customer B');
    sim.data.updateEntity(d, { customerId: custB.id });
    out = await results.ok('e', { payload: { name: 'N-1', label: 'Roof' } });
    assert.equal(out.action, 'updated');
    assert.equal(d.customerId, custB.id);
    assert.equal(d.type, 'meter');
    assert.deepEqual(JSON.parse(d.additionalInfo as string), { gateway: true });
    assert.equal(d.label, 'Roof');
    out = await results.ok('e', { payload: 'N-1' });
    assert.equal(out.action, 'unchanged');
    assert.deepEqual(lastStatus('e'), { fill: 'green', shape: 'dot', text: key('bulkDone') });
  });

  it('a list: one result per row in order, a bad one among them, at most "in parallel" at once', async () => {
    await load([ent('e', { concurrency: 3 })]);
    const rows = Array.from({ length: 12 }, (_, i) => ({ name: `B-${i}`, profile: i === 5 ? 'nope' : 'default' }));
    sim.setLatency(5);
    sim.resetRequests();
    const flight = new InFlight(sim, '/api/');
    const out = await results.ok('e', { payload: rows }).finally(() => flight.stop());
    sim.setLatency(0);
    assert.ok(flight.peak >= 2 && flight.peak <= 3, `at most 3 rows at once, and more than one (peak ${flight.peak})`);
    const res = out.payload as Rec[];
    assert.equal(res.length, 12);
    assert.deepEqual(
      res.map((r) => r.name),
      rows.map((r) => r.name),
    );
    assert.equal(res[5].ok, false);
    assert.equal((res[5].error as Rec).code, 'TB_INVALID_INPUT');
    assert.equal(out.failed, 1);
    assert.ok(res.filter((r) => r.ok).every((r) => r.action === 'created'));
    assert.equal((out.entity as unknown[]).length, 11);
    assert.equal(sim.data.findByName('DEVICE', 'B-5'), undefined);
    assert.equal(sim.data.findByName('DEVICE_PROFILE', 'nope'), undefined);
    assert.equal(sim.countRequests('/api/deviceProfile/names'), 1, "the profiles are read once for the message's rows");
    assert.deepEqual(lastStatus('e'), {
      fill: 'yellow',
      shape: 'dot',
      text: key('bulkPartial'),
    });
  });

  it('Profile and Customer: a placeholder reads the message; the dialog wins over msg.profile, and says so once', async () => {
    await load([
      ent('p', { profile: '{{msg.kind}}' }),
      ent('fixed', { profile: 'default' }),
      ent('a', { operation: 'assign', customer: '{{msg.site.owner}}' }),
    ]);
    let out = await results.ok('p', { payload: { name: 'P-1' }, kind: 'meter' });
    assert.equal((out.payload as Rec).type, 'meter');
    await results.fails('p', { payload: { name: 'P-2' } }, 'TB_INVALID_INPUT', /msg\.kind/);
    assert.equal(sim.data.findByName('DEVICE', 'P-2'), undefined, 'nothing written without the value');
    out = await results.ok('fixed', { payload: { name: 'P-3' }, profile: 'meter' });
    await results.ok('fixed', { payload: { name: 'P-4' }, profile: 'meter' });
    assert.equal((out.payload as Rec).type, 'default', 'the dialog wins');
    assert.equal(warningsOf('fixed').filter((w) => w.startsWith('msg.profile is ignored')).length, 1, 'once');
    assert.deepEqual(warningsOf('p'), [], 'a placeholder reads msg.kind on purpose');
    out = await results.ok('a', { payload: 'P-1', site: { owner: 'Customer B' } });
    const custB = sim.data.mustFindByName('CUSTOMER', 'Customer B');
    assert.equal((out.payload as Rec & { customerId: Rec }).customerId.id, custB.id);
  });

  it('create only and update only: an existing or a missing name goes to Catch, nothing written', async () => {
    await load([ent('c', { operation: 'create' }), ent('u', { operation: 'update' })]);
    await results.fails('c', { payload: { name: 'Thermo A-101' } }, 'TB_BAD_REQUEST', /exists/);
    await results.fails('u', { payload: { name: 'Nobody' } }, 'TB_NOT_FOUND', /no device is named "Nobody"/);
    assert.equal(writes(), 0);
  });

  it('a 409 is read again and retried once; a second is reported', async () => {
    await load([ent('e', { operation: 'update' })]);
    sim.entities.setBehaviour({ concurrentWrites: 1 });
    const out = await results.ok('e', { payload: { name: 'Thermo Lab', label: 'L2' } });
    assert.equal(out.action, 'updated');
    sim.entities.setBehaviour({ concurrentWrites: 2 });
    await results.fails('e', { payload: { name: 'Thermo Lab', label: 'L3' } }, 'TB_HTTP_ERROR', /twice/);
    assert.equal(sim.data.mustFindByName('DEVICE', 'Thermo Lab').label, 'L2');
  });

  it('get, assign (by the customer title), unassign, delete; customers and assets too', async () => {
    await load([
      ent('g', { operation: 'get', entityType: 'ASSET' }),
      ent('a', { operation: 'assign', customer: 'Customer C' }),
      ent('n', { operation: 'unassign' }),
      ent('d', { operation: 'delete' }),
      ent('cu', { entityType: 'CUSTOMER' }),
    ]);
    assert.equal(((await results.ok('g', { payload: 'Building Alpha' })).payload as Rec).name, 'Building Alpha');
    const custC = sim.data.mustFindByName('CUSTOMER', 'Customer C');
    const a = await results.ok('a', { payload: 'Spare Sensor' });
    assert.equal(a.action, 'assigned');
    assert.equal(sim.data.mustFindByName('DEVICE', 'Spare Sensor').customerId, custC.id);
    assert.equal((await results.ok('n', { payload: 'Spare Sensor' })).action, 'unassigned');
    assert.equal((await results.ok('n', { payload: 'Spare Sensor' })).action, 'unchanged');
    const c = await results.ok('cu', { payload: { title: 'Fresh Ltd', email: 'x@y.z' } });
    assert.equal(c.action, 'created');
    assert.equal(sim.data.mustFindByName('CUSTOMER', 'Fresh Ltd').fields.email, 'x@y.z');
    assert.equal((await results.ok('d', { payload: 'Spare Sensor' })).action, 'deleted');
    assert.equal(sim.data.findByName('DEVICE', 'Spare Sensor'), undefined);
  });

  it('the access token: read, then set; bad input for credentials of an asset', async () => {
    await load([
      ent('r', { operation: 'getCredentials' }),
      ent('s', { operation: 'setCredentials' }),
      ent('x', { operation: 'getCredentials', entityType: 'ASSET' }),
    ]);
    const s = await results.ok('s', { payload: { name: 'Gateway 1', accessToken: 'gw-token-9' } });
    assert.deepEqual(s.credentials, { credentialsType: 'ACCESS_TOKEN', accessToken: 'gw-token-9' });
    const r = await results.ok('r', { payload: 'Gateway 1' });
    assert.deepEqual(r.credentials, { credentialsType: 'ACCESS_TOKEN', accessToken: 'gw-token-9' });
    await results.fails('x', { payload: 'Building Alpha' }, 'TB_INVALID_INPUT', /only devices have credentials/);
  });

  it('bad input: no payload, a row without a name, a bad operation from the message; nothing sent', async () => {
    await load([ent('e'), ent('m', { operation: 'msg' })]);
    sim.resetRequests();
    await results.fails('e', {}, 'TB_INVALID_INPUT', /Put the row in msg.payload/);
    await results.fails(
      'e',
      { payload: [{ name: 'ok' }, { label: 'x' }] },
      'TB_INVALID_INPUT',
      /msg.payload\[1\].name/,
    );
    await results.fails('m', { payload: 'a', operation: 'explode' }, 'TB_INVALID_INPUT', /msg.operation/);
    assert.equal(
      sim.requests.entries().filter((e) => e.path.startsWith('/api/') && !e.path.startsWith('/api/auth')).length,
      0,
    );
    assert.equal(sim.data.findByName('DEVICE', 'ok'), undefined);
  });

  it('entity views: create or update (a list), update keeping the rest, get, assign, unassign, delete', async () => {
    await load([
      ent('v', { entityType: 'ENTITY_VIEW', profile: 'thermostat' }),
      ent('g', { entityType: 'ENTITY_VIEW', operation: 'get' }),
      ent('a', { entityType: 'ENTITY_VIEW', operation: 'assign', customer: 'Customer C' }),
      ent('n', { entityType: 'ENTITY_VIEW', operation: 'unassign' }),
      ent('d', { entityType: 'ENTITY_VIEW', operation: 'delete' }),
    ]);
    const thermo = sim.data.mustFindByName('DEVICE', 'Thermo Lab');
    const alpha = sim.data.mustFindByName('ASSET', 'Building Alpha');
    const out = await results.ok('v', {
      payload: [
        { name: 'RV-1', type: 'roomView', entityName: 'Thermo Lab', timeseries: 'temperature,humidity' },
        { name: 'RV-2', type: 'siteView', entityType: 'ASSET', entityName: 'Building Alpha', startTime: 1000 },
        { name: 'RV-3', type: 'roomView', entityName: 'Nowhere' },
      ],
    });
    const rows = out.payload as Rec[];
    assert.deepEqual(
      rows.map((r) => [r.ok, r.action ?? (r.error as Rec).code]),
      [
        [true, 'created'],
        [true, 'created'],
        [false, 'TB_INVALID_INPUT'],
      ],
    );
    assert.match(
      (rows[2].error as Rec).message as string,
      /msg.payload\[2\].entityName.*no device is named "Nowhere"/s,
    );
    assert.equal(out.failed, 1);
    const v1 = sim.data.mustFindByName('ENTITY_VIEW', 'RV-1');
    assert.deepEqual([v1.type, v1.viewOf], ['roomView', { entityType: 'DEVICE', id: thermo.id }]);
    assert.deepEqual(v1.view?.keys, {
      timeseries: ['temperature', 'humidity'],
      attributes: { cs: [], sh: [], ss: [] },
    });
    assert.equal(sim.data.findByName('DEVICE_PROFILE', 'roomView'), undefined, 'a view type makes no profile');
    const v2 = sim.data.mustFindByName('ENTITY_VIEW', 'RV-2');
    assert.deepEqual([v2.viewOf, v2.view?.startTimeMs], [{ entityType: 'ASSET', id: alpha.id }, 1000]);
    assert.deepEqual(out.entity, [
      { entityType: 'ENTITY_VIEW', id: v1.id },
      { entityType: 'ENTITY_VIEW', id: v2.id },
    ]);
    // an update: only the attributes of one scope, the rest (type, entity, time series, customer) kept
    const custB = sim.data.mustFindByName('CUSTOMER', 'Customer B');
    sim.data.updateEntity(v1, { customerId: custB.id });
    const u = await results.ok('v', { payload: { name: 'RV-1', attributes: { shared: ['mode'] } } });
    assert.equal(u.action, 'updated');
    assert.deepEqual(
      [v1.type, v1.viewOf?.id, v1.customerId, v1.view?.keys],
      [
        'roomView',
        thermo.id,
        custB.id,
        { timeseries: ['temperature', 'humidity'], attributes: { cs: [], sh: ['mode'], ss: [] } },
      ],
    );
    assert.equal((await results.ok('v', { payload: { name: 'RV-1', type: 'roomView' } })).action, 'unchanged');
    const g = await results.ok('g', { payload: 'RV-2' });
    assert.deepEqual(
      [g.action, (g.payload as Rec).type, g.entity],
      ['found', 'siteView', { entityType: 'ENTITY_VIEW', id: v2.id }],
    );
    const custC = sim.data.mustFindByName('CUSTOMER', 'Customer C');
    assert.equal((await results.ok('a', { payload: 'RV-2' })).action, 'assigned');
    assert.equal(v2.customerId, custC.id);
    assert.equal((await results.ok('n', { payload: 'RV-2' })).action, 'unassigned');
    assert.equal(v2.customerId, null);
    assert.equal((await results.ok('d', { payload: 'RV-2' })).action, 'deleted');
    assert.equal(sim.data.findByName('ENTITY_VIEW', 'RV-2'), undefined);
  });

  it("entity views: the viewed device's delete is refused at Catch; after the view's delete it goes", async () => {
    await load([ent('dd', { operation: 'delete' }), ent('dv', { entityType: 'ENTITY_VIEW', operation: 'delete' })]);
    await results.fails(
      'dd',
      { payload: 'Thermo A-101' },
      'TB_BAD_REQUEST',
      /Could not delete the device "Thermo A-101".*has entity views/s,
    );
    assert.ok(sim.data.findByName('DEVICE', 'Thermo A-101'));
    assert.equal((await results.ok('dv', { payload: 'View A-101' })).action, 'deleted');
    assert.equal((await results.ok('dd', { payload: 'Thermo A-101' })).action, 'deleted');
    assert.equal(sim.data.findByName('DEVICE', 'Thermo A-101'), undefined);
  });

  it('entity views: bad input at Catch with nothing written (a label, no type on create, credentials)', async () => {
    await load([
      ent('v', { entityType: 'ENTITY_VIEW', operation: 'create' }),
      ent('c', { entityType: 'ENTITY_VIEW', operation: 'setCredentials' }),
    ]);
    sim.resetRequests();
    await results.fails('v', { payload: { name: 'BV', type: 't', label: 'x' } }, 'TB_INVALID_INPUT', /no label/);
    await results.fails(
      'c',
      { payload: { name: 'View A-101', accessToken: 'x' } },
      'TB_INVALID_INPUT',
      /an entity view has none/,
    );
    assert.equal(writes(), 0);
    await results.fails(
      'v',
      { payload: { name: 'BV', entityName: 'Thermo Lab' } },
      'TB_INVALID_INPUT',
      /msg.payload.type/,
    );
    assert.equal(writes(), 0);
    assert.equal(sim.data.findByName('ENTITY_VIEW', 'BV'), undefined);
  });

  it('a customer user: the by-name refusal in words, at Catch', async () => {
    await load([ent('e', { operation: 'get' })], CUSTOMER_A);
    await results.fails('e', { payload: 'Thermo A-101' }, 'TB_PERMISSION', /Log in as a tenant administrator/);
  });
});
