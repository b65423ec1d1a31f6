/**
 * tb-relation in the real Node-RED runtime against the simulator's relations API over loopback: create (an existing
 * relation left as it is, its additional info kept), delete (a missing one is no error), the direction and the type
 * group, find (levels, filters, the related entities in the query nodes' form, feeding a device action), bulk over a
 * list (input order, bounded concurrency, partial failure), and refusals before sending.
 */
import assert from 'node:assert/strict';
import tbAttributes from '../../src/nodes/tb-attributes/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbRelation from '../../src/nodes/tb-relation/index';
import { key } from '../support/runtime';
import { InFlight, useTelemetryTests, type Rec } from './device-support';

const NODES = [tbConnection, tbRelation, tbAttributes];
const UNKNOWN = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';

function rel(id: string, props: Rec = {}): Rec {
  return { id, type: 'tb-relation', connection: 'c1', wires: [['out']], ...props };
}

describe('tb-relation (runtime + simulator)', function () {
  const { sim, load, results, probe, last } = useTelemetryTests(NODES, {
    probeName: 'Relation probe',
    probeType: 'default',
  });
  const asset = (name: string) => sim.data.mustFindByName('ASSET', name);
  const id = (e: { entityType: string; id: string }) => ({ entityType: e.entityType, id: e.id });
  const relationsOf = (fromId: string, toId: string) => sim.data.relationsFrom(fromId).filter((r) => r.to.id === toId);

  describe('create and delete', () => {
    it('create: the related entity (msg.related) Contains the entity; again, it is left as it is', async () => {
      await load([rel('r')]);
      const p = probe();
      const floor = asset('Alpha Floor 1');
      const out = await results.ok('r', { entity: id(p), related: id(floor) });
      assert.deepEqual(out.payload, {
        from: id(floor),
        to: { entityType: 'DEVICE', id: p.id },
        type: 'Contains',
        typeGroup: 'COMMON',
        created: true,
      });
      assert.equal(relationsOf(floor.id, p.id).length, 1);
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('relationCreated') });
      sim.data.addRelation(floor, p, 'Contains', 'COMMON', { note: 'keep me' });
      sim.resetRequests();
      const again = await results.ok('r', { entity: id(p), related: id(floor) });
      assert.equal((again.payload as Rec).created, false);
      assert.equal(sim.countRequests('/api/relation', 'POST'), 0, 'nothing written');
      assert.deepEqual(relationsOf(floor.id, p.id)[0].additionalInfo, { note: 'keep me' });
      assert.deepEqual(last('r'), { fill: 'green', shape: 'dot', text: key('relationExisted') });
    });

    it('direction FROM, a type from the message, another type group, the related entity picked (fixed JSON)', async () => {
      const p = probe();
      const gw = sim.data.mustFindByName('DEVICE', 'Gateway 1');
      await load([
        rel('r', {
          direction: 'FROM',
          relationType: '',
          typeGroup: 'EDGE',
          related: JSON.stringify(id(gw)),
          relatedType: 'json',
        }),
      ]);
      const out = await results.ok('r', { entity: id(p), relationType: 'Manages' });
      assert.equal((out.payload as Rec).created, true);
      const r = relationsOf(p.id, gw.id);
      assert.equal(r.length, 1);
      assert.equal(r[0].type, 'Manages');
      assert.equal(r[0].typeGroup, 'EDGE');
    });

    it('delete: the relation is gone; deleting it again is no error', async () => {
      await load([rel('d', { operation: 'delete' })]);
      const p = probe();
      const floor = asset('Alpha Floor 2');
      sim.data.addRelation(floor, p, 'Contains');
      const out = await results.ok('d', { entity: id(p), related: id(floor) });
      assert.equal((out.payload as Rec).deleted, true);
      assert.equal(relationsOf(floor.id, p.id).length, 0);
      assert.deepEqual(last('d'), { fill: 'green', shape: 'dot', text: key('relationDeleted') });
      const again = await results.ok('d', { entity: id(p), related: id(floor) });
      assert.equal((again.payload as Rec).deleted, false);
      assert.deepEqual(last('d'), { fill: 'green', shape: 'dot', text: key('relationMissing') });
    });

    it('a related entity that does not exist is an error at Catch, and nothing is written', async () => {
      await load([rel('r')]);
      const p = probe();
      const { error } = await results.fails(
        'r',
        { entity: id(p), related: { entityType: 'ASSET', id: UNKNOWN } },
        'TB_NOT_FOUND',
        /Check both entities exist/,
      );
      assert.match(String(error.message), new RegExp(UNKNOWN));
      assert.equal(sim.countRequests('/api/relation', 'POST'), 0);
      assert.deepEqual(last('r'), { fill: 'red', shape: 'ring', text: key('notFound') });
    });

    it('refused before sending: no related entity, no relation type, a bad entity, a bad list', async () => {
      await load([rel('r', { relationType: '' })]);
      const p = probe();
      const floor = id(asset('Alpha Floor 1'));
      await results.fails('r', { entity: id(p), relationType: 'Contains' }, 'TB_INVALID_INPUT', /msg\.related/);
      await results.fails('r', { entity: id(p), related: floor }, 'TB_INVALID_INPUT', /Give a relation type/);
      await results.fails(
        'r',
        { entity: 'nope', related: floor, relationType: 'X' },
        'TB_INVALID_INPUT',
        /msg\.entity/,
      );
      await results.fails('r', { entity: [], related: floor, relationType: 'X' }, 'TB_INVALID_INPUT', /empty list/);
      await results.fails(
        'r',
        { entity: id(p), related: { entityType: 'ALARM', id: UNKNOWN }, relationType: 'X' },
        'TB_INVALID_INPUT',
        /msg\.related\.entityType is ALARM/,
      );
      assert.equal(sim.countRequests('/api/relation'), 0);
    });
  });

  describe('find', () => {
    it("the devices two levels under a building, in the query nodes' form (id, entityType, name)", async () => {
      await load([rel('f', { operation: 'find', direction: 'FROM', maxLevel: 2, entityTypes: 'DEVICE' })]);
      const alpha = asset('Building Alpha');
      const out = await results.ok('f', { entity: id(alpha) });
      const found = out.payload as Array<{ id: string; entityType: string; name: string; relationType: string }>;
      const floors = ['Alpha Floor 1', 'Alpha Floor 2'].map((n) => asset(n).id);
      const expected = sim.data
        .relations()
        .filter((r) => floors.includes(r.from.id) && r.type === 'Contains' && r.to.entityType === 'DEVICE')
        .map((r) => r.to.id);
      assert.ok(expected.length > 1);
      assert.deepEqual(found.map((f) => f.id).sort(), [...expected].sort());
      for (const f of found) {
        assert.equal(f.entityType, 'DEVICE');
        assert.equal(f.name, sim.data.get(f.id)!.name);
      }
      assert.deepEqual(last('f'), { fill: 'green', shape: 'dot', text: key('related') });
    });

    it('relation type filter and levels: only Manages at one level; parents with TO and every level', async () => {
      await load([
        rel('m', { operation: 'find', direction: 'FROM', relationType: 'Manages' }),
        rel('up', { operation: 'find', direction: 'TO', maxLevel: 0, relationType: '' }),
      ]);
      const out = await results.ok('m', { entity: id(asset('Building Alpha')) });
      assert.deepEqual(
        (out.payload as Rec[]).map((x) => x.name),
        ['Meter A-100'],
      );
      const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      const up = await results.ok('up', { entity: id(a101) });
      assert.deepEqual(
        (up.payload as Rec[]).map((x) => x.name),
        ['Alpha Floor 1', 'Building Alpha', 'Campus North'],
      );
    });

    it('the found list feeds a device action as it is (tb-attributes reads each device)', async () => {
      await load([
        rel('f', { operation: 'find', direction: 'FROM', entityTypes: 'DEVICE', wires: [['a']] }),
        { id: 'a', type: 'tb-attributes', connection: 'c1', operation: 'read', keys: 'model', wires: [['out']] },
      ]);
      const floor = asset('Alpha Floor 1');
      const devices = sim.data
        .relationsFrom(floor.id)
        .filter((r) => r.to.entityType === 'DEVICE')
        .map((r) => r.to.id);
      const out = await results.ok('f', { entity: id(floor) });
      const res = out.payload as Array<{ entity: Rec; ok: boolean }>;
      assert.deepEqual(
        res.map((r) => r.entity.id),
        devices,
      );
      assert.ok(res.every((r) => r.ok));
    });
  });

  describe('bulk', () => {
    it('every device of a list goes under the floor: results in input order, bounded concurrency, partial failure', async () => {
      await load([rel('r', { concurrency: 2 })]);
      const floor = asset('Beta Floor 2');
      const list = [probe(), probe(), probe(), probe()].map(id);
      const withBad = [...list.slice(0, 2), { entityType: 'DEVICE', id: UNKNOWN }, ...list.slice(2)];
      sim.setLatency(10);
      const flight = new InFlight(sim, '/api/relation');
      let out;
      try {
        out = await results.ok('r', { entity: withBad, related: id(floor) });
      } finally {
        flight.stop();
      }
      assert.equal(flight.peak, 2);
      const res = out.payload as Array<{ entity: Rec; ok: boolean; created?: boolean; error?: Rec }>;
      assert.deepEqual(
        res.map((r) => r.entity.id),
        withBad.map((e) => e.id),
      );
      assert.deepEqual(
        res.map((r) => r.ok),
        [true, true, false, true, true],
      );
      assert.equal(res[2].error!.code, 'TB_NOT_FOUND');
      assert.equal(out.failed, 1);
      for (const e of list) assert.equal(relationsOf(floor.id, e.id).length, 1);
      assert.deepEqual(last('r'), { fill: 'yellow', shape: 'dot', text: key('bulkPartial') });
    });

    it('a customer user: its own devices relate, another customer’s are refused (permission)', async () => {
      await load([rel('r', { direction: 'FROM', relationType: 'Uses' })], {
        username: 'customer@thingsboard.org',
        password: 'customer',
      });
      const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      const list = ['Thermo A-102', 'Thermo C-1'].map((n) => id(sim.data.mustFindByName('DEVICE', n)));
      const out = await results.ok('r', { entity: list, related: id(a101) });
      const res = out.payload as Array<{ ok: boolean; error?: Rec }>;
      assert.deepEqual(
        res.map((r) => r.ok),
        [true, false],
      );
      assert.equal(res[1].error!.code, 'TB_PERMISSION');
    });
  });
});
