/**
 * The entity example as shipped in examples/, run in the real runtime against the simulator (its connection replaced
 * by the test's, its debug nodes by helper nodes, its inject pressed by the test): the CSV's devices are created with
 * their profile, label and floor attribute, one result per row in the file's order; sent again, nothing is made twice.
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntity from '../../src/nodes/tb-entity/index';
import { Collector, inject, loadExample, useRuntime } from '../support/runtime';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the examples' messages are arbitrary JSON
type Rec = Record<string, any>;

describe('examples: entity management (runtime + simulator)', function () {
  const sim = useRuntime({}, { perTest: true, server: true });
  const load = () =>
    loadExample(
      'Create the devices of a CSV file.json',
      sim.url,
      [tbConnection, tbEntity],
      ['common/20-inject.js', 'parsers/70-CSV.js', 'function/10-function.js'],
    );

  it('Create the devices of a CSV file: created in order with profile, label and floor; again: unchanged', async () => {
    const byName = await load();
    const out = new Collector(byName('one result per row').id);
    inject(byName('devices.csv').id, {} as never);
    const first = (await out.until(() => true)).payload as Rec[];
    assert.deepEqual(
      first.map((r) => [r.name, r.ok, r.action]),
      [
        ['Sensor-101', true, 'created'],
        ['Sensor-102', true, 'created'],
        ['Sensor-201', true, 'created'],
        ['Meter-1', true, 'created'],
      ],
    );
    const s = sim.data.mustFindByName('DEVICE', 'Sensor-201');
    assert.deepEqual([s.type, s.label], ['thermostat', 'Room 201']);
    assert.equal(sim.data.getAttribute(s, 'SERVER_SCOPE', 'floor')?.value, 2);
    inject(byName('devices.csv').id, {} as never);
    const again = (await out.until((m) => m !== undefined && (m.payload as Rec[])[0].action !== 'created'))
      .payload as Rec[];
    assert.deepEqual(
      again.map((r) => r.action),
      ['unchanged', 'unchanged', 'unchanged', 'unchanged'],
    );
    assert.equal(sim.data.list('DEVICE').filter((d) => d.name === 'Sensor-101').length, 1);
  });
});
