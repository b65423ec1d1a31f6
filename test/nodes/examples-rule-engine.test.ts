/**
 * The rule engine example as shipped in examples/, run in the real runtime against the simulator (its connection
 * replaced by the test's, its debug nodes by helper nodes, its inject buttons pressed by the test): the root chain
 * answers the inject's question as the connection's user; the thermostat picked by name sends its fixed data through
 * its profile's chain; a chain that does not answer ends at the catch node with TB_RULE_NO_REPLY.
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbRuleEngine from '../../src/nodes/tb-rule-engine/index';
import { assertCode, Collector, inject, loadExample, useRuntime, type ExampleNode } from '../support/runtime';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the examples' messages are arbitrary JSON
type Rec = Record<string, any>;

describe('examples: the rule engine (runtime + simulator)', function () {
  // The rule engine waits a hundredth of its time (the example's 5 s: 50 ms).
  const sim = useRuntime({ ruleEngineTimeScale: 0.01 }, { perTest: true, server: true });
  const load = () =>
    loadExample('Ask a rule chain for an answer.json', sim.url, [tbConnection, tbRuleEngine], ['common/20-inject.js']);
  const press = (node: ExampleNode) => inject(node.id, {} as never);

  it('Ask a rule chain for an answer: as the user, as the thermostat picked by name, and a chain that does not answer', async () => {
    const byName = await load();
    const answer = new Collector(byName('answer').id);
    const device = new Collector(byName("device's answer").id);
    const error = new Collector(byName('error').id);
    const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    const me = sim.auth.users.find((u) => u.email === 'tenant@thingsboard.org')!;

    // The inject's JSON goes in as the connection's user; the demo root chain answers with it and its originator.
    press(byName('question: status'));
    const a = await answer.until(() => true);
    assert.deepEqual((a.payload as Rec).question, 'status');
    assert.deepEqual((a.payload as Rec).originator.id, me.userId);

    // The device picked by name in the dialog: its fixed data, not the inject's timestamp, within 5 s.
    assert.deepEqual(JSON.parse(String(byName('ask as Thermo A-101').target)), { entityType: 'DEVICE', id: a101.id });
    press(byName('ask Thermo A-101'));
    const d = await device.until(() => true);
    assert.deepEqual(d.payload, {
      question: 'temperature',
      originator: { entityType: 'DEVICE', id: a101.id, name: 'Thermo A-101' },
    });
    assert.deepEqual(d.ruleEngine, { originator: { entityType: 'DEVICE', id: a101.id }, queue: null, timeout: 5000 });

    // No "rest call reply" on the path: the catch node says so.
    sim.ruleEngine.setChain({ mode: 'silent' });
    press(byName('ask Thermo A-101'));
    const e = await error.until(() => true);
    assertCode(e.error as Rec, 'TB_RULE_NO_REPLY');
    assert.match((e.error as Rec).message, /Add a "rest call reply" node/);
    assert.equal(sim.ruleEngine.count(), 3);
  });
});
