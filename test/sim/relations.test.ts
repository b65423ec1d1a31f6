/**
 * The simulator's relations API, as `C/EntityRelationController.java` answers: save as an upsert with a new version
 * (v2 answers the relation, v1 an empty 200), delete (v2 answers the deleted one; a missing one is 404), the type
 * groups as separate keys, the relations query (breadth-first, levels, last level only, OR-ed filters on the far end,
 * 404 without filters, TO when no direction), the info form's names, the read filter of a customer user, and the
 * errors (missing entity, no WRITE, blank type, empty parameter).
 */
import assert from 'node:assert/strict';
import type { SimEntity } from '../../sim/index';
import { useSimSetup } from '../support/simulator';

const UNKNOWN = '5f3c9a10-e71b-11f0-9d7e-8b1f2c3d4e5f';

describe('simulator: relations API', function () {
  const c = useSimSetup({}, { perTest: true });
  const byName = (type: 'ASSET' | 'DEVICE' | 'CUSTOMER', name: string): SimEntity =>
    c.sim.data.mustFindByName(type, name);
  const ref = (e: SimEntity) => ({ entityType: e.entityType, id: e.id });
  const delQuery = (from: SimEntity, to: SimEntity, type: string, group?: string): string =>
    `fromId=${from.id}&fromType=${from.entityType}&relationType=${type}&toId=${to.id}&toType=${to.entityType}` +
    (group ? `&relationTypeGroup=${group}` : '');

  it('POST /api/v2/relation saves and answers the relation; saving again is an upsert with a new version', async () => {
    const floor = byName('ASSET', 'Alpha Floor 1');
    const spare = byName('DEVICE', 'Spare Sensor');
    const r1 = await c.tenant.post('/api/v2/relation', { from: ref(floor), to: ref(spare), type: 'Contains' });
    assert.equal(r1.status, 200);
    assert.deepEqual(r1.body.from, ref(floor));
    assert.deepEqual(r1.body.to, ref(spare));
    assert.equal(r1.body.type, 'Contains');
    assert.equal(r1.body.typeGroup, 'COMMON');
    assert.equal(typeof r1.body.version, 'number');
    const r2 = await c.tenant.post('/api/v2/relation', {
      from: ref(floor),
      to: ref(spare),
      type: 'Contains',
      additionalInfo: { note: 'x' },
      version: 1,
    });
    assert.equal(r2.status, 200);
    assert.ok(r2.body.version > r1.body.version, 'a new version, the client one ignored');
    assert.deepEqual(r2.body.additionalInfo, { note: 'x' });
    const mine = c.sim.data.relationsFrom(floor.id).filter((r) => r.to.id === spare.id);
    assert.equal(mine.length, 1, 'one relation, not two');
  });

  it('POST /api/relation (v1) answers 200 with an empty body; the v2 path does not exist before 3.8', async () => {
    const floor = byName('ASSET', 'Alpha Floor 1');
    const spare = byName('DEVICE', 'Spare Sensor');
    const r = await c.tenant.post('/api/relation', { from: ref(floor), to: ref(spare), type: 'Uses' });
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
    assert.ok(c.sim.data.relationsFrom(floor.id).some((x) => x.to.id === spare.id && x.type === 'Uses'));
    c.sim.setVersion('3.7.0');
    const old = await c.tenant.post('/api/v2/relation', { from: ref(floor), to: ref(spare), type: 'Uses' });
    assert.equal(old.status, 404);
  });

  it('the type group is part of the key: a DASHBOARD relation is separate and not walked by the entity query', async () => {
    const floor = byName('ASSET', 'Alpha Floor 1');
    const spare = byName('DEVICE', 'Spare Sensor');
    const r = await c.tenant.post('/api/v2/relation', {
      from: ref(floor),
      to: ref(spare),
      type: 'Contains',
      typeGroup: 'DASHBOARD',
    });
    assert.equal(r.body.typeGroup, 'DASHBOARD');
    const common = await c.tenant.request('GET', `/api/relation?${delQuery(floor, spare, 'Contains')}`);
    assert.equal(common.status, 404);
    const dash = await c.tenant.request('GET', `/api/relation?${delQuery(floor, spare, 'Contains', 'DASHBOARD')}`);
    assert.equal(dash.status, 200);
    const q = await c.tenant.post('/api/relations', {
      parameters: { rootId: floor.id, rootType: 'ASSET', direction: 'FROM', maxLevel: 1 },
      filters: [],
    });
    assert.ok(!q.body.some((x: { to: { id: string } }) => x.to.id === spare.id), 'COMMON only by default');
  });

  it('DELETE /api/v2/relation answers the deleted relation; a missing one is 404 "Requested item wasn\'t found!"', async () => {
    const b = byName('ASSET', 'Building Alpha');
    const f = byName('ASSET', 'Alpha Floor 1');
    const r = await c.tenant.request('DELETE', `/api/v2/relation?${delQuery(b, f, 'Contains')}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.to, ref(f));
    assert.ok(!c.sim.data.relationsFrom(b.id).some((x) => x.to.id === f.id));
    const again = await c.tenant.request('DELETE', `/api/v2/relation?${delQuery(b, f, 'Contains')}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.errorCode, 32);
    assert.equal(again.body.message, "Requested item wasn't found!");
    const v1 = await c.tenant.request(
      'DELETE',
      `/api/relation?${delQuery(b, byName('ASSET', 'Alpha Floor 2'), 'Contains')}`,
    );
    assert.equal(v1.status, 200);
    assert.equal(v1.text, '');
  });

  it('an end that does not exist is 404 "<Type> with id [..] is not found"; a blank type is a validation error', async () => {
    const f = byName('ASSET', 'Alpha Floor 1');
    const r = await c.tenant.post('/api/v2/relation', {
      from: ref(f),
      to: { entityType: 'DEVICE', id: UNKNOWN },
      type: 'Contains',
    });
    assert.equal(r.status, 404);
    assert.equal(r.body.errorCode, 32);
    assert.equal(r.body.message, `Device with id [${UNKNOWN}] is not found`);
    const blank = await c.tenant.post('/api/v2/relation', { from: ref(f), to: ref(f), type: ' ' });
    assert.equal(blank.status, 400);
    assert.equal(blank.body.message, 'Validation error: type must not be blank');
    const noParam = await c.tenant.request('DELETE', `/api/v2/relation?fromId=${f.id}&fromType=ASSET&relationType=`);
    assert.equal(noParam.status, 400);
    assert.equal(noParam.body.message, "Parameter 'relationType' can't be empty!");
  });

  it("a customer user may relate its own devices and assets, not its customer entity nor another customer's device", async () => {
    const a101 = byName('DEVICE', 'Thermo A-101');
    const a102 = byName('DEVICE', 'Thermo A-102');
    const ok = await c.customer.post('/api/v2/relation', { from: ref(a101), to: ref(a102), type: 'Uses' });
    assert.equal(ok.status, 200);
    const cust = c.sim.data.get(a101.customerId!)!;
    const toCustomer = await c.customer.post('/api/v2/relation', { from: ref(cust), to: ref(a101), type: 'Owns' });
    assert.equal(toCustomer.status, 403);
    assert.equal(toCustomer.body.errorCode, 20);
    const c1 = byName('DEVICE', 'Thermo C-1');
    const other = await c.customer.post('/api/v2/relation', { from: ref(a101), to: ref(c1), type: 'Uses' });
    assert.equal(other.status, 403);
  });

  it('the relations query: all levels breadth-first, maxLevel, last level only, OR-ed filters on the far end', async () => {
    const alpha = byName('ASSET', 'Building Alpha');
    const params = { rootId: alpha.id, rootType: 'ASSET', direction: 'FROM' };
    const one = await c.tenant.post('/api/relations', { parameters: { ...params, maxLevel: 1 }, filters: [] });
    assert.equal(one.status, 200);
    const direct = c.sim.data.relationsFrom(alpha.id).map((r) => r.to.id);
    assert.deepEqual(
      one.body.map((r: { to: { id: string } }) => r.to.id),
      direct,
    );
    const all = await c.tenant.post('/api/relations', {
      parameters: { ...params, maxLevel: 0 },
      filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
    });
    const floorIds = new Set(['Alpha Floor 1', 'Alpha Floor 2'].map((n) => byName('ASSET', n).id));
    const expected = c.sim.data
      .relations()
      .filter((r) => floorIds.has(r.from.id) && r.type === 'Contains' && r.to.entityType === 'DEVICE');
    assert.ok(expected.length > 0);
    assert.deepEqual(
      all.body.map((r: { to: { id: string } }) => r.to.id).sort(),
      expected.map((r) => r.to.id).sort(),
      'devices two levels down; the Manages relation to the meter filtered out',
    );
    const either = await c.tenant.post('/api/relations', {
      parameters: { ...params, maxLevel: 2 },
      filters: [{ relationType: 'Manages' }, { entityTypes: ['ASSET'] }],
    });
    const types = either.body.map((r: { type: string; to: { entityType: string } }) => `${r.type}:${r.to.entityType}`);
    assert.deepEqual([...new Set(types)].sort(), ['Contains:ASSET', 'Manages:DEVICE']);
    const last = await c.tenant.post('/api/relations', {
      parameters: { ...params, maxLevel: 2, fetchLastLevelOnly: true },
      filters: [],
    });
    assert.ok(
      !last.body.some((r: { to: { id: string } }) => floorIds.has(r.to.id)),
      'the floors are not the last level',
    );
    assert.ok(last.body.length >= expected.length);
  });

  it('the query without filters is 404; without direction walks TO; the info form names the far end', async () => {
    const a101 = byName('DEVICE', 'Thermo A-101');
    const none = await c.tenant.post('/api/relations', { parameters: { rootId: a101.id, rootType: 'DEVICE' } });
    assert.equal(none.status, 404);
    assert.equal(none.body.message, "Requested item wasn't found!");
    const up = await c.tenant.post('/api/relations/info', {
      parameters: { rootId: a101.id, rootType: 'DEVICE', maxLevel: 0 },
      filters: [],
    });
    assert.equal(up.status, 200);
    const names = up.body.map((r: { fromName: string }) => r.fromName);
    assert.deepEqual(names, ['Alpha Floor 1', 'Building Alpha', 'Campus North']);
    assert.equal(up.body[0].toName, undefined);
  });

  it('a customer user sees only the relations whose ends it can read, with no error', async () => {
    const a101 = byName('DEVICE', 'Thermo A-101');
    const t = await c.tenant.post('/api/relations', {
      parameters: { rootId: a101.id, rootType: 'DEVICE', direction: 'TO', maxLevel: 0 },
      filters: [],
    });
    const u = await c.customer.post('/api/relations', {
      parameters: { rootId: a101.id, rootType: 'DEVICE', direction: 'TO', maxLevel: 0 },
      filters: [],
    });
    assert.equal(u.status, 200);
    assert.ok(u.body.length < t.body.length, `${u.body.length} < ${t.body.length}`);
  });
});
