/**
 * The alarm examples that act or watch per entity as shipped in examples/, run in the real runtime against the
 * simulator (their connection replaced by the test's, their debug nodes by helper nodes): a new critical alarm is
 * acknowledged with the operator's comment (the alarm from msg.alarm, the comment set in the dialog); a thermostat
 * above the limit gets an alarm that is cleared when it cools down; every meter the query finds goes, row by row,
 * straight into the alarm status node, and a new critical alarm is told as it is raised.
 */
import assert from 'node:assert/strict';
import { dbl } from '../../sim';
import tbAlarmAction from '../../src/nodes/tb-alarm-action/index';
import tbAlarmStatus from '../../src/nodes/tb-alarm-status/index';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbEntityQuery from '../../src/nodes/tb-entity-query/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import { Collector, loadExample, statusWhere, useRuntime } from '../support/runtime';

describe('examples: acting on alarms (runtime + simulator)', function () {
  this.timeout(30000);
  const sim = useRuntime({}, { perTest: true, server: true });
  const load = (file: string) =>
    loadExample(
      file,
      sim.url,
      [tbConnection, tbAlarmAction, tbSubscribe],
      ['function/10-function.js', 'function/89-delay.js'],
    );

  it('Acknowledge from a notification: a new critical alarm is told to a person, and acknowledged with a comment', async () => {
    const byName = await load('Acknowledge from a notification.json');
    // The reply goes straight to the action: its Alarm is msg.alarm and its Comment the text set in its dialog.
    const ack = byName('acknowledge');
    assert.deepEqual(byName('the person replies "ack" (5 s later)').wires, [[ack.id]]);
    assert.deepEqual([ack.alarmType, ack.alarm, ack.commentType], ['msg', 'alarm', 'str']);
    const notification = new Collector(byName('notification').id);
    const acknowledged = new Collector(byName('acknowledged').id);
    // The subscription is live once its status is green (its snapshot is not sent: the example sends "created").
    await statusWhere(byName('new critical alarms').id, (s) => s.fill === 'green');
    const thermo = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
    const alarm = sim.data.createAlarm({ originator: thermo.id, type: 'Overheating', severity: 'CRITICAL' });
    const told = await notification.until(() => true, 8000);
    assert.match(String(told.payload), /^CRITICAL Overheating on Thermo A-101\. Reply "ack"/);
    const done = await acknowledged.until(() => true, 15000);
    assert.equal(done.topic, alarm.id);
    assert.equal(done.operation, 'acknowledge');
    assert.equal(done.alreadyDone, false);
    assert.equal((done.payload as Record<string, unknown>).acknowledged, true);
    assert.equal(sim.data.getAlarm(alarm.id)?.acknowledged, true);
    const comments = sim.data.alarmComments(alarm.id).map((c) => (c.comment as { text?: string }).text);
    assert.ok(comments.includes('Acknowledged by the on-call person from the chat'), JSON.stringify(comments));
  });

  it('Raise an alarm from a flow: above the limit an alarm is raised once, back under it is cleared', async () => {
    const byName = await load('Raise an alarm from a flow.json');
    const results = new Collector(byName('raised / cleared').id);
    await statusWhere(byName('thermostat temperatures').id, (s) => s.fill === 'green');
    const thermo = sim.data.mustFindByName('DEVICE', 'Thermo B-201');
    sim.data.setTelemetry(thermo.id, { temperature: dbl(25.5) });
    const raised = await results.until((m) => m.operation === 'raise', 8000);
    assert.equal(raised.created, true);
    const alarm = sim.data.getAlarm(String(raised.topic))!;
    assert.deepEqual(
      [alarm.type, alarm.severity, alarm.originator.id, alarm.cleared],
      ['Too warm (flow rule)', 'MAJOR', thermo.id, false],
    );
    // Still too warm: not raised again.
    sim.data.setTelemetry(thermo.id, { temperature: dbl(26) });
    sim.data.setTelemetry(thermo.id, { temperature: dbl(21) });
    const cleared = await results.until((m) => m.operation === 'clear', 8000);
    assert.equal(cleared.topic, alarm.id);
    assert.equal(sim.data.getAlarm(alarm.id)?.cleared, true);
    assert.equal(results.all.filter((m) => m.operation === 'raise').length, 1);
  });

  it('Alarm to notification pipeline: each meter row of the query goes straight to the alarm status node; a new alarm is told and watched', async () => {
    const byName = await loadExample(
      'Alarm to notification pipeline.json',
      sim.url,
      [tbConnection, tbEntityQuery, tbSubscribe, tbAlarmStatus],
      ['common/20-inject.js', 'function/10-switch.js', 'function/80-template.js'],
    );
    // No node between the query and the alarm status node: the flat row (its entityType and id) is the entity.
    assert.deepEqual(byName('meters, one by one').wires, [[byName('meter has an alarm?').id]]);
    const live = statusWhere(byName('live alarms').id, (s) => s.fill === 'green', 15000);
    const status = new Collector(byName('alarm status').id);
    const notification = new Collector(byName('notification').id);
    const meters = sim.data.devices().filter((d) => d.type === 'meter');
    assert.ok(meters.length > 1);
    // "watch all meters" fires by itself at deploy (2 s): one answer per meter, named in msg.topic.
    const answered = new Set<string>();
    await status.until((m) => (answered.add(String(m.topic)), meters.every((d) => answered.has(d.id))), 15000, true);
    assert.deepEqual([...answered].sort(), meters.map((d) => d.id).sort());
    await live;
    const quiet = meters.find((d) => status.all.some((m) => m.topic === d.id && m.payload === false))!;
    assert.ok(quiet, 'a meter without an alarm');
    sim.data.createAlarm({ originator: quiet.id, type: 'Leak', severity: 'CRITICAL' });
    const now = await status.until((m) => m.topic === quiet.id && m.payload === true);
    assert.deepEqual(now.originator, { entityType: 'DEVICE', id: quiet.id });
    const told = await notification.until((m) => /^New CRITICAL alarm "Leak"/.test(String(m.payload)));
    assert.equal(told.payload, `New CRITICAL alarm "Leak" on ${quiet.name}`);
  });
});
