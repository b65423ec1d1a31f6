/**
 * The relation example as shipped in examples/, run in the real runtime against the simulator (its connection
 * replaced by the test's, its debug nodes by helper nodes, its inject button pressed by the test): every device under
 * each floor of Building Gamma, at any depth, ends directly under its floor, and a second run changes nothing.
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbRelation from '../../src/nodes/tb-relation/index';
import { Collector, inject, loadExample, useRuntime } from '../support/runtime';

// the example's messages are arbitrary JSON, read deep in the assertions
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Rec = Record<string, any>;

describe('examples: relations (runtime + simulator)', function () {
  this.timeout(30000);
  const sim = useRuntime({}, { perTest: true, server: true });

  it("Put every device of a building's floors under the floor asset: find floors, find their devices, relate", async () => {
    const byName = await loadExample(
      "Put every device of a building's floors under the floor asset.json",
      sim.url,
      [tbConnection, tbEntityQuery, tbRelation],
      ['common/20-inject.js', 'sequence/17-split.js', 'function/15-change.js'],
    );
    const results = new Collector(byName('results').id);
    const errors = new Collector(byName('error').id);
    const floor1 = sim.data.mustFindByName('ASSET', 'Gamma Floor 1');
    const lab = sim.data.mustFindByName('DEVICE', 'Thermo Lab');
    const direct = (floorId: string) =>
      sim.data
        .relationsFrom(floorId)
        .filter((r) => r.type === 'Contains' && r.to.entityType === 'DEVICE')
        .map((r) => r.to.id);
    assert.ok(!direct(floor1.id).includes(lab.id), 'the seed: Thermo Lab hangs under the gateway only');
    const floors = ['Gamma Floor 1', 'Gamma Floor 2'].map((n) => sim.data.mustFindByName('ASSET', n));

    inject(byName('Building Gamma').id, {} as never);
    const outs = [await results.until(() => true, 15000), await results.until(() => true, 15000)];
    const created = outs.flatMap((o) => (o.payload as Rec[]).filter((r) => r.ok && r.created).map((r) => r.entity.id));
    assert.deepEqual(created, [lab.id], 'only Thermo Lab was missing a direct relation');
    for (const o of outs) assert.equal(o.failed, 0);
    assert.ok(direct(floor1.id).includes(lab.id), 'Gamma Floor 1 Contains Thermo Lab now');
    for (const f of floors) assert.ok(direct(f.id).length > 0);
    const before = sim.data.relations().length;

    inject(byName('Building Gamma').id, {} as never);
    const again = [await results.until(() => true, 15000), await results.until(() => true, 15000)];
    assert.ok(again.every((o) => (o.payload as Rec[]).every((r) => r.ok && r.created === false)));
    assert.equal(sim.data.relations().length, before, 'a second run changes nothing');
    assert.equal(errors.all.length, 0);
  });
});
