/**
 * The notification examples as shipped in examples/, in the real runtime against the simulator (their connection
 * replaced by the test's, their debug nodes by helper nodes): a new critical alarm becomes a notification to the
 * tenant administrators and the night shift, with its stats; the same by hand with a saved template; and the user's
 * notifications forwarded as they arrive, then marked read.
 */
import assert from 'node:assert/strict';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbNotify from '../../src/nodes/tb-notify/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import { Collector, inject, loadExample, statusWhere, useRuntime } from '../support/runtime';

type Rec = Record<string, unknown>;

describe('examples: notifications (runtime + simulator)', function () {
  this.timeout(30000);
  const sim = useRuntime({}, { perTest: true });
  const load = (file: string) =>
    loadExample(
      file,
      sim.url,
      [tbConnection, tbSubscribe, tbNotify],
      ['common/20-inject.js', 'function/80-template.js'],
    );
  const userId = (email: string) => sim.auth.users.find((u) => u.email === email)!.userId;

  it('Critical alarm through the notification center: a new critical alarm is sent to two targets, with its stats', async () => {
    const byName = await load('Critical alarm through the notification center.json');
    const stats = new Collector(byName('stats').id);
    await statusWhere(byName('new critical alarms').id, (s) => s.fill === 'green');
    const thermo = sim.data.mustFindByName('DEVICE', 'Thermo B-203');
    sim.data.createAlarm({ originator: thermo.id, type: 'Overheating', severity: 'MAJOR' }); // not critical: nothing
    sim.data.createAlarm({ originator: thermo.id, type: 'Freezing', severity: 'CRITICAL' });
    const out = (await stats.until(() => true)).payload as Rec;
    assert.equal(out.status, 'SENT');
    // four tenant administrators (Terry is in both targets: once), on the web and by e-mail
    assert.deepEqual((out.stats as Rec).sent, { WEB: 4, EMAIL: 4 });
    const terry = sim.notifications.inbox(userId('tech@thingsboard.org'))[0];
    assert.equal(terry.subject, 'Critical alarm: Freezing');
    assert.equal(terry.text, 'Terry, Thermo B-203 has a critical alarm: Freezing.');
    assert.equal(stats.all.length, 1, 'the major alarm sent nothing');
  });

  it('Critical alarm through the notification center: by hand, with the template picked by name', async () => {
    const byName = await load('Critical alarm through the notification center.json');
    const stats = new Collector(byName('template stats').id);
    inject(byName('send by hand').id, { payload: '' });
    const out = (await stats.until(() => true)).payload as Rec;
    assert.equal(out.templateName, 'Critical alarm');
    assert.deepEqual((out.stats as Rec).sent, { WEB: 4, EMAIL: 4 });
  });

  it('Notifications to another channel: each new notification is forwarded, then marked read', async () => {
    const byName = await load('Notifications to another channel.json');
    const chat = new Collector(byName('chat').id);
    const left = new Collector(byName('unread left').id);
    await statusWhere(byName('my notifications').id, (s) => s.fill === 'green');
    const n = sim.notifications.addNotification({
      recipientId: userId('tenant@thingsboard.org'),
      subject: 'Pump 3',
      text: 'Pump 3 stopped.',
    });
    assert.equal((await chat.until(() => true)).payload, 'ThingsBoard: Pump 3. Pump 3 stopped.');
    const marked = await left.until(() => true);
    assert.deepEqual(marked.payload, { id: n.id, status: 'READ', unreadCount: 2 });
    assert.equal(sim.notifications.notifications.get(n.id)!.status, 'READ');
    assert.equal(chat.all.length, 1, 'the unread ones of the start are not forwarded (Send: new notifications)');
  });
});
