/**
 * tb-subscribe watching the current user's notifications, in the real runtime against the simulator's WebSocket
 * over loopback: the unread ones first, one message per new one, the unread count, on the connection's one socket
 * beside other subscriptions; resent after a reconnect without repeating one already sent; only web notifications;
 * with tb-notify sending to the user and marking read.
 */
import assert from 'node:assert/strict';
import { BASE_TIME, HOUR } from '../../sim';
import type { TbConnectionNode } from '../../src/node-red/connection';
import tbConnection from '../../src/nodes/tb-connection/index';
import tbNotify from '../../src/nodes/tb-notify/index';
import tbSubscribe from '../../src/nodes/tb-subscribe/index';
import { Collector, connectionNode, flow, helper, key, statuses, TENANT, useRuntime } from '../support/runtime';
import { waitFor } from '../support/wait';

const NODES = [tbConnection, tbSubscribe, tbNotify];
type Rec = Record<string, unknown>;
const NOW = BASE_TIME + HOUR;

function inbox(id: string, extra: Rec = {}): Rec {
  return {
    id,
    type: 'tb-subscribe',
    connection: 'c1',
    kind: 'notifications',
    format: 'flat',
    wires: [['out']],
    ...extra,
  };
}

describe('tb-subscribe: the current user’s notifications (runtime + simulator WebSocket)', function () {
  const sim = useRuntime(
    { now: () => NOW },
    { perTest: true, settings: { tbConnectionReconnectInitialMs: 20, tbConnectionReconnectMaxMs: 200 } },
  );
  const load = (nodes: Rec[], creds: Rec = TENANT) =>
    helper.load(NODES, flow(connectionNode(sim.url), ...nodes), { c1: creds });
  const userId = (email: string) => sim.auth.users.find((u) => u.email === email)!.userId;
  const tenant = () => userId('tenant@thingsboard.org');
  let minute = 0;
  const push = (subject: string, recipient = tenant()) =>
    sim.notifications.addNotification({
      recipientId: recipient,
      subject,
      text: `${subject}!`,
      createdTime: NOW + ++minute * 60_000,
    });
  const commands = (type: string) => sim.ws.commandsReceived().filter((c) => c.type === type);

  it('first the unread ones with their count, then one message per new notification; the status counts them', async () => {
    await load([inbox('s')]);
    const c = new Collector('out');
    const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
    assert.equal(snap.topic, 'notifications');
    assert.equal(snap.unreadCount, 2);
    const items = snap.payload as Rec[];
    assert.deepEqual(
      items.map((n) => n.subject),
      ['Maintenance due', 'Firmware update available'],
    );
    assert.deepEqual(Object.keys(items[0]).sort(), [
      'createdTime',
      'deliveryMethod',
      'id',
      'info',
      'requestId',
      'status',
      'subject',
      'text',
      'type',
    ]);
    assert.equal(typeof items[0].id, 'string', 'flat: the id as a string');
    assert.deepEqual(commands('NOTIFICATIONS')[0].cmd, {
      type: 'NOTIFICATIONS',
      limit: 10,
      cmdId: commands('NOTIFICATIONS')[0].cmdId,
    });
    const n = push('Pump 3 stopped');
    const got = await c.until((m) => m.event === 'notification');
    assert.equal(got.topic, n.id);
    assert.equal((got.payload as Rec).subject, 'Pump 3 stopped');
    assert.equal((got.payload as Rec).text, 'Pump 3 stopped!');
    assert.equal(got.unreadCount, 3);
    await waitFor(() => statuses('s').some((s) => s.fill === 'green' && s.text === key('unread')));
  });

  it('a notification read elsewhere: the unread count alone', async () => {
    await load([inbox('s')]);
    const c = new Collector('out');
    const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
    const first = (snap.payload as Rec[])[0];
    sim.notifications.markRead(
      { authority: 'TENANT_ADMIN', userId: tenant(), tenantId: '', customerId: null },
      String(first.id),
    );
    const count = await c.until((m) => m.event === 'count');
    assert.equal(count.payload, 1);
    assert.deepEqual(
      c.all.map((m) => m.event),
      ['snapshot', 'count'],
      'no notification message for a re-listed inbox',
    );
  });

  it('resent after a reconnect: the ones that came meanwhile, oldest first, and none already sent', async () => {
    await load([inbox('s', { notificationLimit: 5 })]);
    const c = new Collector('out');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    push('before the drop');
    await c.until((m) => m.event === 'notification');
    // the server goes away; two notifications arrive while the node is not connected
    await sim.stop();
    push('while away 1');
    push('while away 2');
    await sim.start();
    const a = await c.until((m) => m.event === 'notification');
    const b = await c.until((m) => m.event === 'notification');
    assert.deepEqual([(a.payload as Rec).subject, (b.payload as Rec).subject], ['while away 1', 'while away 2']);
    assert.equal(b.unreadCount, 5);
    assert.equal(commands('NOTIFICATIONS').length, 2, 'subscribed again once');
    // nothing else came: the snapshot is not sent again, "before the drop" is not repeated
    push('after');
    await c.until((m) => m.event === 'notification' && (m.payload as Rec).subject === 'after');
    assert.deepEqual(
      c.all.map((m) => (m.event === 'snapshot' ? 'snapshot' : (m.payload as Rec).subject)),
      ['snapshot', 'before the drop', 'while away 1', 'while away 2', 'after'],
    );
  });

  it('older unread notifications that the first list left out are not new when a later list shows them', async () => {
    for (let i = 0; i < 3; i++)
      sim.notifications.addNotification({
        recipientId: tenant(),
        subject: `old ${i}`,
        text: 'x',
        createdTime: BASE_TIME - (10 + i) * HOUR,
      });
    await load([inbox('s', { notificationLimit: 2 })]);
    const c = new Collector('out');
    const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
    assert.equal((snap.payload as Rec[]).length, 2);
    assert.equal(snap.unreadCount, 5);
    // reading the newest re-lists the inbox: "old 0" moves into the list, and is not sent
    const newest = (snap.payload as Rec[])[0];
    sim.notifications.markRead(
      { authority: 'TENANT_ADMIN', userId: tenant(), tenantId: '', customerId: null },
      String(newest.id),
    );
    await c.until((m) => m.event === 'count' && m.payload === 4);
    // after a reconnect the list holds it too: still not new
    sim.ws.dropAll();
    await waitFor(() => commands('NOTIFICATIONS').length === 2);
    const fresh = push('new one');
    const got = await c.until((m) => m.event === 'notification');
    assert.equal(got.topic, fresh.id);
    assert.ok(
      c.all.every((m) => m.event !== 'notification' || m.topic === fresh.id),
      JSON.stringify(c.all.map((m) => m.event)),
    );
  });

  it('trap: only web notifications are live: a mobile-app one sends nothing', async () => {
    await load([inbox('s')]);
    const c = new Collector('out');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    sim.notifications.addNotification({
      recipientId: tenant(),
      subject: 'mobile',
      text: 'x',
      deliveryMethod: 'MOBILE_APP',
    });
    const web = push('web');
    await c.until((m) => m.event === 'notification');
    assert.deepEqual(
      c.all.map((m) => m.topic),
      ['notifications', web.id],
    );
  });

  it("another user's notifications are not seen; Send keeps only the events chosen", async () => {
    await load([inbox('s', { events: 'notification' })]);
    const c = new Collector('out');
    await waitFor(() => statuses('s').some((s) => s.text === key('unread')));
    push('for Terry', userId('tech@thingsboard.org'));
    const mine = push('for me');
    const got = await c.until((m) => m.event === 'notification');
    assert.equal(got.topic, mine.id);
    assert.equal(c.all.length, 1, 'no snapshot (not chosen), nothing of Terry');
  });

  it('on the shared socket beside an alarm count: one WebSocket, and unsubscribe stops it', async () => {
    const before = sim.ws.connections().total;
    await load([
      inbox('s'),
      {
        id: 'a',
        type: 'tb-subscribe',
        connection: 'c1',
        kind: 'alarmCount',
        queryType: 'json',
        // an entity filter: the server counts again on each alarm event of those entities
        query: JSON.stringify({ entityFilter: { type: 'entityType', entityType: 'DEVICE' }, statusList: ['ACTIVE'] }),
        wires: [['count']],
      },
      { id: 'count', type: 'helper', wires: [] },
    ]);
    const c = new Collector('out');
    const cc = new Collector('count');
    await c.until((m) => m.event === 'snapshot', 8000, true);
    await cc.until((m) => m.event === 'count', 8000, true);
    assert.equal(sim.ws.connections().total - before, 1);
    assert.equal((helper.getNode('c1') as unknown as TbConnectionNode).live().stats.sockets, 1);
    (helper.getNode('s') as unknown as { receive(m: Rec): void }).receive({ action: 'unsubscribe' });
    await waitFor(() => commands('NOTIFICATIONS_UNSUBSCRIBE').length === 1);
    push('unheard');
    // the alarm count is still live and its socket in order: an alarm reaches it after the unheard notification
    sim.data.createAlarm({
      originator: sim.data.mustFindByName('DEVICE', 'Thermo A-101').id,
      type: 'X',
      severity: 'MAJOR',
    });
    await cc.until((m) => m.event === 'count' && m.payload === 10);
    assert.deepEqual(
      c.all.map((m) => m.event),
      ['snapshot'],
    );
  });

  it('with tb-notify: a notification sent to the user arrives live, is forwarded and marked read', async () => {
    await load([
      inbox('s', { events: 'notification', wires: [['read']] }),
      { id: 'read', type: 'tb-notify', connection: 'c1', action: 'markRead', wires: [['out']] },
      {
        id: 'send',
        type: 'tb-notify',
        connection: 'c1',
        targets: 'Tenant administrators',
        subject: 'Hello',
        text: 'Hi ${recipientFirstName}',
        wires: [['sent']],
      },
      { id: 'sent', type: 'helper', wires: [] },
    ]);
    const c = new Collector('out');
    await waitFor(() => statuses('s').some((s) => s.text === key('unread')));
    (helper.getNode('send') as unknown as { receive(m: Rec): void }).receive({ payload: 'go' });
    const marked = await c.until(() => true);
    const id = (marked.payload as Rec).id as string;
    assert.equal(sim.notifications.notifications.get(id)!.text, 'Hi Tenant');
    assert.equal(sim.notifications.notifications.get(id)!.status, 'READ');
    assert.equal((marked.payload as Rec).unreadCount, 2, 'the two seeded ones are left');
  });

  it('a setting out of range is a config error at deploy; a customer user has an inbox too', async () => {
    await load([inbox('bad', { notificationLimit: 0 })]);
    assert.equal(statuses('bad')[0]?.text, key('configError'));
    await helper.unload();
    await load([inbox('s')], { username: 'customer@thingsboard.org', password: 'customer' });
    const c = new Collector('out');
    const snap = await c.until((m) => m.event === 'snapshot', 8000, true);
    assert.deepEqual(snap.payload, []);
    assert.equal(snap.unreadCount, 0);
  });
});
