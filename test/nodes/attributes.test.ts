/**
 * tb-attributes in the real Node-RED runtime against the simulator's §13 endpoints over loopback: save (SERVER and
 * SHARED, pushed to a device), read (one scope, each of the three, flat and raw), delete (every scope), scope and
 * operation from the message, refusals before sending (nothing sent), permissions, both error shapes, bulk over an
 * entity query's output (order, partial failure), retry safety, and a write seen by tb-subscribe.
 */
import assert from 'node:assert/strict';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import { Collector, key } from '../support/runtime';
import { InFlight, useTelemetryTests, type Rec } from './device-support';

const NODES = [tbConnection, tbAttributes, tbSubscribe];
const T = '/api/plugins/telemetry';

function attr(id: string, props: Rec = {}): Rec {
  return { id, type: 'tb-attributes', connection: 'c1', wires: [['out']], ...props };
}

describe('tb-attributes (runtime + simulator)', function () {
  const { sim, load, results, dev, probe, last, sent } = useTelemetryTests(NODES, {
    probeName: 'Attr probe',
    probeType: 'thermostat',
  });

  describe('save', () => {
    it('SHARED_SCOPE on a device: stored and pushed to the device; the output is the incoming message', async () => {
      await load([attr('a', { scope: 'SHARED_SCOPE' })]);
      const p = probe();
      const out = await results.ok('a', {
        entity: { entityType: 'DEVICE', id: p.id },
        payload: { targetTemperature: 21.5, mode: 'eco', cfg: { a: [1] } },
        chatId: 1,
      });
      assert.deepEqual(out.payload, { targetTemperature: 21.5, mode: 'eco', cfg: { a: [1] } });
      assert.equal(out.chatId, 1);
      assert.equal(sim.data.attributeOf(p.id, 'SHARED_SCOPE', 'targetTemperature')?.value, 21.5);
      assert.equal(sim.data.attributeOf(p.id, 'SHARED_SCOPE', 'cfg')?.type, 'JSON');
      assert.equal(sim.telemetry.sharedPushes(p.id), 1);
      assert.equal(sim.countRequests(`${T}/DEVICE/${p.id}/attributes/SHARED_SCOPE`, 'POST'), 1);
      assert.deepEqual(last('a'), { fill: 'green', shape: 'dot', text: key('saved') });
    });

    it('SERVER_SCOPE by default; SHARED on an asset is stored, pushed nowhere', async () => {
      await load([attr('a'), attr('s', { scope: 'SHARED_SCOPE', targetEntityType: 'ASSET' })]);
      const p = probe();
      await results.ok('a', { topic: p.id, payload: { note: 'hello' } });
      assert.equal(sim.data.attributeOf(p.id, 'SERVER_SCOPE', 'note')?.value, 'hello');
      const alpha = sim.data.mustFindByName('ASSET', 'Building Alpha');
      await results.ok('s', { topic: alpha.id, payload: { shared: 1 } });
      assert.equal(sim.data.attributeOf(alpha.id, 'SHARED_SCOPE', 'shared')?.value, 1);
      assert.equal(sim.telemetry.sharedPushes(), 0);
    });

    it('refused before sending: not an object, empty, a null value (named), a blank key, CLIENT_SCOPE, any', async () => {
      await load([attr('a'), attr('c', { scope: 'CLIENT_SCOPE' }), attr('m', { scope: 'msg' })]);
      const e = { entity: probe().id };
      await results.fails(
        'a',
        { ...e, payload: 'x' },
        'TB_INVALID_INPUT',
        /msg\.payload must be an object of attributes/,
      );
      await results.fails('a', { ...e, payload: [1] }, 'TB_INVALID_INPUT', /msg\.payload must be an object/);
      await results.fails('a', { ...e, payload: {} }, 'TB_INVALID_INPUT', /empty object/);
      await results.fails(
        'a',
        { ...e, payload: { ok: 1, mode: null } },
        'TB_INVALID_INPUT',
        /msg\.payload\.mode is null/,
      );
      await results.fails('a', { ...e, payload: { ' ': 1 } }, 'TB_INVALID_INPUT', /blank key/);
      await results.fails(
        'c',
        { ...e, payload: { a: 1 } },
        'TB_INVALID_INPUT',
        /scope is CLIENT_SCOPE: ThingsBoard saves attributes only in SERVER_SCOPE or SHARED_SCOPE/,
      );
      await results.fails('m', { ...e, payload: { a: 1 }, scope: 'any' }, 'TB_INVALID_INPUT', /msg\.scope is any/);
      await results.fails('m', { ...e, payload: { a: 1 } }, 'TB_INVALID_INPUT', /msg\.scope must be one of .*missing/);
      assert.equal(sent(), 0, 'nothing was sent');
    });

    it('a save retried after a lost connection stores the same values', async () => {
      await load([attr('a')]);
      const p = probe();
      sim.faults.add({ path: `${T}/DEVICE/${p.id}/attributes`, dropConnection: 'after' });
      await results.ok('a', { entity: p.id, payload: { level: 3 } });
      assert.equal(sim.countRequests(`${T}/DEVICE/${p.id}/attributes`, 'POST'), 2);
      assert.equal(sim.data.attributeOf(p.id, 'SERVER_SCOPE', 'level')?.value, 3);
    });

    it('a write is seen by tb-subscribe', async () => {
      const p = probe();
      const query = {
        entityFilter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: p.id } },
        entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
        latestValues: [{ type: 'SHARED_ATTRIBUTE', key: 'targetTemperature' }],
      };
      await load([
        attr('a', { scope: 'SHARED_SCOPE' }),
        {
          id: 'sub',
          type: 'tb-subscribe',
          connection: 'c1',
          kind: 'entityData',
          queryType: 'json',
          query: JSON.stringify(query),
          format: 'flat',
          wires: [['live']],
        },
        { id: 'live', type: 'helper', z: 't', x: 500, y: 300, wires: [] },
      ]);
      const live = new Collector('live');
      await live.until((m) => m.event === 'snapshot', 8000, true);
      await results.ok('a', { entity: p.id, payload: { targetTemperature: 19.5 } });
      const u = await live.until((m) => m.event === 'update');
      assert.equal((u.payload as Rec).targetTemperature, 19.5);
    });
  });

  describe('read', () => {
    it("one scope, flat: key: value with native types and msg.ts; keys optional; raw is the server's list", async () => {
      await load([
        attr('r', { operation: 'read', scope: 'SERVER_SCOPE' }),
        attr('raw', { operation: 'read', scope: 'SERVER_SCOPE', format: 'raw', keys: 'model' }),
      ]);
      const a101 = dev('Thermo A-101');
      const out = await results.ok('r', { entity: a101.id, keys: 'active, model' });
      assert.deepEqual(out.payload, { active: true, model: 'TH-100' });
      assert.deepEqual(Object.keys(out.ts as Rec).sort(), ['active', 'model']);
      const all = await results.ok('r', { entity: a101.id });
      assert.ok('note' in (all.payload as Rec) && 'active' in (all.payload as Rec), 'every key');
      const raw = await results.ok('raw', { entity: a101.id });
      assert.deepEqual(
        (raw.payload as Rec[]).map((a) => [a.key, a.value]),
        [['model', 'TH-100']],
      );
      assert.equal(typeof (raw.payload as Rec[])[0].lastUpdateTs, 'number');
      assert.deepEqual(last('raw'), { fill: 'green', shape: 'dot', text: key('oneValue') }, 'one attribute: "1 value"');
      await results.ok('r', { entity: a101.id, keys: 'no such key' });
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('noValues') });
      await results.ok('r', { entity: a101.id });
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('values') });
    });

    it("any: each scope apart (never the server's merged list, which loses the scope)", async () => {
      await load([
        attr('r', { operation: 'read', scope: 'any', keys: 'note' }),
        attr('raw', { operation: 'read', scope: 'any', keys: 'note', format: 'raw' }),
      ]);
      const a101 = dev('Thermo A-101');
      const out = await results.ok('r', { entity: a101.id });
      assert.deepEqual(out.payload, {
        SERVER_SCOPE: { note: 'server note' },
        SHARED_SCOPE: {},
        CLIENT_SCOPE: { note: 'client note' },
      });
      assert.deepEqual(Object.keys(out.ts as Rec), ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE']);
      for (const s of ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'])
        assert.equal(sim.countRequests(`${T}/DEVICE/${a101.id}/values/attributes/${s}`, 'GET'), 1);
      assert.equal(sim.countRequests(new RegExp(`/values/attributes\\?`)), 0);
      const raw = await results.ok('raw', { entity: a101.id });
      assert.deepEqual(Object.keys(raw.payload as Rec), ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE']);
      assert.deepEqual(
        ((raw.payload as Rec).CLIENT_SCOPE as Rec[]).map((a) => a.value),
        ['client note'],
      );
    });

    it('scope and operation from the message', async () => {
      await load([attr('m', { operation: 'msg', scope: 'msg' })]);
      const a101 = dev('Thermo A-101');
      const out = await results.ok('m', { operation: 'read', scope: 'CLIENT_SCOPE', keys: ['fw'], entity: a101.id });
      assert.deepEqual(out.payload, { fw: '1.2.0' });
      await results.fails(
        'm',
        { operation: 'write', scope: 'CLIENT_SCOPE', entity: a101.id },
        'TB_INVALID_INPUT',
        /msg\.operation must be one of save, read, delete/,
      );
    });
  });

  describe('delete', () => {
    it('removes the keys of one scope (CLIENT_SCOPE too); msg.payload and msg.deleted = the keys; keys are required', async () => {
      await load([
        attr('d', { operation: 'delete', scope: 'CLIENT_SCOPE' }),
        attr('any', { operation: 'delete', scope: 'any', keys: 'x' }),
      ]);
      const p = probe();
      sim.data.setAttributes(p.id, 'CLIENT_SCOPE', { fw: '1.0', serial: 'S1' });
      const out = await results.ok('d', { entity: p.id, keys: 'fw, nothere', payload: 7 });
      assert.deepEqual(out.deleted, ['fw', 'nothere']);
      assert.deepEqual(out.payload, ['fw', 'nothere'], 'what was done, where a debug node looks first');
      assert.equal(sim.data.attributeOf(p.id, 'CLIENT_SCOPE', 'fw'), undefined);
      assert.equal(sim.data.attributeOf(p.id, 'CLIENT_SCOPE', 'serial')?.value, 'S1');
      assert.deepEqual(last('d'), { fill: 'green', shape: 'dot', text: key('deleted') });
      await results.fails('d', { entity: p.id }, 'TB_INVALID_INPUT', /keys must name at least one key/);
      await results.fails('any', { entity: p.id }, 'TB_INVALID_INPUT', /scope is any: a delete needs one scope/);
      assert.equal(sim.countRequests(T, 'DELETE'), 1);
    });
  });

  describe('errors', () => {
    it("a tenant administrator writing its own tenant's attributes: 403, refused by ThingsBoard by design, in the server's words", async () => {
      await load([attr('a')]);
      const tenant = sim.data.list('TENANT')[0];
      await results.fails(
        'a',
        { entity: { entityType: 'TENANT', id: tenant.id }, payload: { x: 1 } },
        'TB_PERMISSION',
        /refuses it by design\) \(ThingsBoard answered HTTP 403: You don't have permission to perform this operation!/,
      );
    });

    it("a 404 bare string, a 400 bare string and an empty 500: readable messages with the server's words", async () => {
      await load([attr('a')]);
      await results.fails(
        'a',
        { entity: { entityType: 'ASSET', id: '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f' }, payload: { x: 1 } },
        'TB_NOT_FOUND',
        /ASSET 5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f was not found.*Asset with requested id wasn't found!/,
      );
      const p = probe();
      sim.faults.add({ path: `${T}/DEVICE/${p.id}`, status: 400, body: 'Invalid scope: SERVER_SCOPE' });
      await results.fails(
        'a',
        { entity: p.id, payload: { x: 1 } },
        'TB_BAD_REQUEST',
        /HTTP 400: Invalid scope: SERVER_SCOPE/,
      );
      sim.faults.add({ path: `${T}/DEVICE/${p.id}`, status: 500, body: '' });
      await results.fails(
        'a',
        { entity: p.id, payload: { x: 1 } },
        'TB_SERVER_ERROR',
        /ThingsBoard answered HTTP 500 \(POST/,
      );
    });
  });

  describe('bulk', () => {
    it('every thermostat of a query gets the shared attribute: results in input order, bounded concurrency', async () => {
      await load([attr('a', { scope: 'SHARED_SCOPE', concurrency: 3 })]);
      const thermostats = sim.data.devices().filter((d) => d.type === 'thermostat');
      // flat tb-entity-query items
      const items = thermostats.map((d) => ({ id: d.id, entityType: 'DEVICE', name: d.name, ts: {} }));
      sim.setLatency(10);
      const flight = new InFlight(sim, T);
      let out;
      try {
        out = await results.ok('a', { entity: items, payload: { targetTemperature: 22 } });
      } finally {
        flight.stop();
      }
      assert.equal(flight.peak, 3);
      const res = out.payload as Array<{ entity: Rec; ok: boolean }>;
      assert.deepEqual(
        res.map((r) => r.entity.id),
        thermostats.map((d) => d.id),
      );
      assert.ok(res.every((r) => r.ok));
      assert.equal(out.failed, 0);
      for (const d of thermostats)
        assert.equal(sim.data.attributeOf(d.id, 'SHARED_SCOPE', 'targetTemperature')?.value, 22);
      assert.equal(sim.telemetry.sharedPushes(), thermostats.length);
    });

    it('a customer user: its own devices succeed, the others are refused: partial failure, yellow status', async () => {
      await load([attr('r', { operation: 'read', keys: 'model' })], {
        username: 'customer@thingsboard.org',
        password: 'customer',
      });
      const list = [dev('Thermo A-101'), dev('Thermo B-101'), dev('Thermo A-102')].map((d) => d.id);
      const out = await results.ok('r', { entity: list });
      const res = out.payload as Array<{ ok: boolean; error?: Rec; payload?: Rec }>;
      assert.deepEqual(
        res.map((r) => r.ok),
        [true, false, true],
      );
      assert.equal(res[1].error!.code, 'TB_PERMISSION');
      assert.deepEqual(res[0].payload, { model: 'TH-100' });
      assert.equal(out.failed, 1);
      assert.deepEqual(last('r'), { fill: 'yellow', shape: 'dot', text: key('bulkPartial') });
    });
  });
});
